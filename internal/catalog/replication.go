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
	rep, warnings, err := validateReplication(ks.Name, replication, ks.Replication, topo)
	if err != nil {
		return nil, err
	}
	if !creating && totalReplicas(rep) > totalReplicas(ks.Replication) {
		warnings = append(warnings, "When increasing replication factor you need to run a full (-full) repair to distribute the data.")
	}
	ks.Replication = rep
	return warnings, nil
}

// defaultKeyspaceRF is the replication factor of a strategy given without
// one (cassandra.yaml default_keyspace_rf, 1 by default, Cassandra 4.1+).
const defaultKeyspaceRF = "1"

// totalReplicas is the sum of a replication map's factors.
func totalReplicas(rep map[string]string) int {
	n := 0
	for k, v := range rep {
		if k != "class" {
			rf, _ := strconv.Atoi(v)
			n += rf
		}
	}
	return n
}

// validateReplication checks a replication map and fills in what Cassandra
// 5.0 derives (ReplicationParams.fromMapWithDefaults), as the reference node
// shows: a strategy given without factors keeps the previous ones of the
// same strategy on ALTER, or gets default_keyspace_rf; for
// NetworkTopologyStrategy an ALTER keeps the factors of the data centers it
// does not name, replication_factor applies to the data centers named
// neither now nor before, and a data center with factor 0 is left out.
func validateReplication(keyspace string, m, previous map[string]string, topo Topology) (map[string]string, []string, error) {
	class, ok := m["class"]
	if !ok {
		return nil, nil, cqlerr.Configf("Missing replication strategy class")
	}
	full := class
	if !strings.Contains(class, ".") {
		full = "org.apache.cassandra.locator." + class
	}
	samePrevious := previous != nil && previous["class"] == full
	out := map[string]string{"class": full}
	var warnings []string
	checkRF := func(v, dc string) error {
		rf, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return cqlerr.Configf("Replication factor must be numeric; found %s", v)
		}
		if rf < 0 {
			return cqlerr.Configf("Replication factor must be non-negative, found %s", v)
		}
		if rf > topo.Nodes {
			w := "Your replication factor " + strconv.Itoa(rf) + " for keyspace " + keyspace +
				" is higher than the number of nodes " + strconv.Itoa(topo.Nodes)
			if dc != "" {
				w += " for datacenter " + dc
			}
			warnings = append(warnings, w)
		}
		return nil
	}
	switch full {
	case simpleStrategy:
		for k := range m {
			if k != "class" && k != "replication_factor" {
				return nil, nil, cqlerr.Configf("Unrecognized strategy option {%s} passed to SimpleStrategy for keyspace %s", k, keyspace)
			}
		}
		rf, ok := m["replication_factor"]
		switch {
		case ok:
		case samePrevious:
			rf = previous["replication_factor"]
		default:
			rf = defaultKeyspaceRF
		}
		if err := checkRF(rf, ""); err != nil {
			return nil, nil, err
		}
		out["replication_factor"] = rf
	case networkStrategy:
		if err := networkReplication(keyspace, m, previous, samePrevious, topo, out); err != nil {
			return nil, nil, err
		}
		for _, dc := range topo.DataCenters {
			if v, ok := out[dc]; ok {
				if err := checkRF(v, dc); err != nil {
					return nil, nil, err
				}
			}
		}
	case localStrategy:
		return nil, nil, cqlerr.Configf("Unable to use given strategy class: LocalStrategy is reserved for internal use.")
	default:
		return nil, nil, cqlerr.Configf("Unable to find replication strategy class '%s'", full)
	}
	return out, warnings, nil
}

// networkReplication fills out with NetworkTopologyStrategy's factors per
// data center.
func networkReplication(keyspace string, m, previous map[string]string, samePrevious bool, topo Topology, out map[string]string) error {
	dcs := map[string]bool{}
	for _, dc := range topo.DataCenters {
		dcs[dc] = true
	}
	options := map[string]string{}
	for k, v := range m {
		switch {
		case k == "class":
		case k == "replication_factor" || dcs[k]:
			if _, err := strconv.Atoi(strings.TrimSpace(v)); err != nil {
				return cqlerr.Configf("Replication factor must be numeric; found %s", v)
			}
			options[k] = v
		default:
			return cqlerr.Configf("Unrecognized strategy option {%s} passed to NetworkTopologyStrategy for keyspace %s", k, keyspace)
		}
	}
	if len(options) == 0 && !samePrevious {
		options["replication_factor"] = defaultKeyspaceRF
	}
	if samePrevious {
		// An ALTER keeps the previous factors of the data centers it does
		// not name; replication_factor fills in only the others.
		for k, v := range previous {
			if k != "class" {
				out[k] = v
			}
		}
	}
	for k, v := range options {
		if k != "replication_factor" {
			out[k] = v
		}
	}
	if rf, ok := options["replication_factor"]; ok {
		for _, dc := range topo.DataCenters {
			if _, named := out[dc]; !named {
				out[dc] = rf
			}
		}
	}
	for k, v := range out {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); k != "class" && err == nil && n == 0 {
			delete(out, k)
		} else if k != "class" && n < 0 {
			return cqlerr.Configf("Replication factor must be non-negative, found %s", v)
		}
	}
	if len(out) == 1 {
		return cqlerr.Configf("Configuration for at least one datacenter must be present")
	}
	return nil
}
