package catalog

import (
	"strconv"
	"strings"

	"github.com/partita-db/partita/internal/cqlerr"
)

const (
	simpleStrategy  = "org.apache.cassandra.locator.SimpleStrategy"
	networkStrategy = "org.apache.cassandra.locator.NetworkTopologyStrategy"
	localStrategy   = "org.apache.cassandra.locator.LocalStrategy"
)

// Topology is what replication validation needs to know of the cluster.
type Topology struct {
	DataCenters []string
	Nodes       int
}

// KeyspaceSpec is a CREATE or ALTER KEYSPACE statement's content.
type KeyspaceSpec struct {
	Name        string
	IfNotExists bool // CREATE
	IfExists    bool // ALTER
	Properties  []Property
}

// keyspaceOptions applies properties to a keyspace (new or existing),
// following KeyspaceAttributes and the replication strategies' validation.
// It returns client warnings (replication factor above the node count).
func keyspaceOptions(ks *Keyspace, props []Property, creating bool, topo Topology) ([]string, error) {
	seen := map[string]bool{}
	var replication map[string]string
	for _, p := range props {
		if seen[p.Name] {
			return nil, cqlerr.Syntaxf("Multiple definitions for property '%s'", p.Name)
		}
		seen[p.Name] = true
		switch p.Name {
		case "replication":
			if !p.IsMap {
				return nil, cqlerr.Syntaxf("Invalid value for property 'replication'. It should be a map.")
			}
			replication = p.Map
		case "durable_writes":
			b, err := parseBool(p)
			if err != nil {
				return nil, err
			}
			ks.DurableWrites = b
		default:
			return nil, cqlerr.Syntaxf("Unknown property '%s'", p.Name)
		}
	}
	if replication == nil {
		if creating {
			return nil, cqlerr.Configf("Missing mandatory option 'replication'")
		}
		return nil, nil
	}
	rep, warnings, err := validateReplication(ks.Name, replication, topo)
	if err != nil {
		return nil, err
	}
	ks.Replication = rep
	return warnings, nil
}

func validateReplication(keyspace string, m map[string]string, topo Topology) (map[string]string, []string, error) {
	class, ok := m["class"]
	if !ok {
		return nil, nil, cqlerr.Configf("Missing replication strategy class")
	}
	full := class
	if !strings.Contains(class, ".") {
		full = "org.apache.cassandra.locator." + class
	}
	out := map[string]string{"class": full}
	var warnings []string
	checkRF := func(v string) error {
		rf, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return cqlerr.Configf("Replication factor must be numeric; found %s", v)
		}
		if rf < 0 {
			return cqlerr.Configf("Replication factor must be non-negative, found %s", v)
		}
		if rf > topo.Nodes {
			warnings = append(warnings, "Your replication factor "+strconv.Itoa(rf)+" for keyspace "+keyspace+
				" is higher than the number of nodes "+strconv.Itoa(topo.Nodes))
		}
		return nil
	}
	switch full {
	case simpleStrategy:
		rf, ok := m["replication_factor"]
		if !ok {
			return nil, nil, cqlerr.Configf("SimpleStrategy requires a replication_factor strategy option.")
		}
		for k := range m {
			if k != "class" && k != "replication_factor" {
				return nil, nil, cqlerr.Configf("Unrecognized strategy option {%s} passed to SimpleStrategy for keyspace %s", k, keyspace)
			}
		}
		if err := checkRF(rf); err != nil {
			return nil, nil, err
		}
		out["replication_factor"] = rf
	case networkStrategy:
		dcs := map[string]bool{}
		for _, dc := range topo.DataCenters {
			dcs[dc] = true
		}
		for k, v := range m {
			switch {
			case k == "class":
			case k == "replication_factor":
				if err := checkRF(v); err != nil {
					return nil, nil, err
				}
				for _, dc := range topo.DataCenters {
					if _, explicit := m[dc]; !explicit {
						out[dc] = v
					}
				}
			case dcs[k]:
				if err := checkRF(v); err != nil {
					return nil, nil, err
				}
				out[k] = v
			default:
				return nil, nil, cqlerr.Configf("Unrecognized strategy option {%s} passed to NetworkTopologyStrategy for keyspace %s", k, keyspace)
			}
		}
		if len(out) == 1 {
			return nil, nil, cqlerr.Configf("Configuration for at least one datacenter must be present")
		}
	case localStrategy:
		return nil, nil, cqlerr.Configf("Unable to use given strategy class: LocalStrategy is reserved for internal use.")
	default:
		return nil, nil, cqlerr.Configf("Unable to find replication strategy class '%s'", full)
	}
	return out, warnings, nil
}
