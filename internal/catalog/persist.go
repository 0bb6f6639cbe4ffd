package catalog

import (
	"encoding/json"
	"fmt"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/types"
)

// The persisted form of a schema: JSON, with types as their CQL text and
// user-defined types listed before anything that uses them.
type schemaJSON struct {
	Version     UUID           `json:"version"`
	NextTableID uint64         `json:"next_table_id"`
	Keyspaces   []keyspaceJSON `json:"keyspaces"`
}

type keyspaceJSON struct {
	Name          string            `json:"name"`
	DurableWrites bool              `json:"durable_writes"`
	Replication   map[string]string `json:"replication"`
	Types         []typeJSON        `json:"types,omitempty"`
	Tables        []tableJSON       `json:"tables,omitempty"`
}

type typeJSON struct {
	Name   string      `json:"name"`
	Fields [][2]string `json:"fields"`
}

type columnJSON struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Kind     uint8  `json:"kind"`
	Position int    `json:"position"`
	Desc     bool   `json:"desc,omitempty"`
	ID       uint32 `json:"id"`
	Hidden   int64  `json:"hidden_up_to,omitempty"`
}

type droppedJSON struct {
	Type      string `json:"type"`
	DroppedAt int64  `json:"dropped_at"`
	Kind      uint8  `json:"kind"`
	ID        uint32 `json:"id,omitempty"`
	HasID     bool   `json:"has_id,omitempty"`
}

type tableJSON struct {
	Name         string                 `json:"name"`
	ID           UUID                   `json:"id"`
	StorageID    uint64                 `json:"storage_id"`
	NextColumnID uint32                 `json:"next_column_id"`
	Columns      []columnJSON           `json:"columns"`
	Options      Options                `json:"options"`
	Dropped      map[string]droppedJSON `json:"dropped,omitempty"`
	Indexes      []*Index               `json:"indexes,omitempty"`
	View         *ViewDef               `json:"view,omitempty"`
}

func encodeSchema(s *Schema) ([]byte, error) {
	out := schemaJSON{Version: s.Version, NextTableID: uint64(s.NextTableID)}
	for _, name := range s.KeyspaceNames() {
		ks := s.Keyspaces[name]
		if ks.Virtual || ks.IsSystem() {
			continue
		}
		kj := keyspaceJSON{Name: ks.Name, DurableWrites: ks.DurableWrites, Replication: ks.Replication}
		for _, t := range ks.Types {
			tj := typeJSON{Name: t.Name}
			for i, f := range t.FieldNames {
				tj.Fields = append(tj.Fields, [2]string{f, t.Elems[i].String()})
			}
			kj.Types = append(kj.Types, tj)
		}
		for _, tname := range ks.TableNames() {
			kj.Tables = append(kj.Tables, encodeTable(ks.Tables[tname]))
		}
		out.Keyspaces = append(out.Keyspaces, kj)
	}
	return json.Marshal(out)
}

func encodeTable(t *Table) tableJSON {
	tj := tableJSON{Name: t.Name, ID: t.ID, StorageID: uint64(t.StorageID), NextColumnID: uint32(t.NextColumnID),
		Options: t.Options, Indexes: t.Indexes, View: t.View, Dropped: map[string]droppedJSON{}}
	for _, c := range t.Columns {
		tj.Columns = append(tj.Columns, columnJSON{Name: c.Name, Type: c.Type.String(), Kind: uint8(c.Kind),
			Position: c.Position, Desc: c.Desc, ID: uint32(c.ID), Hidden: c.HiddenUpTo})
	}
	for name, d := range t.Dropped {
		tj.Dropped[name] = droppedJSON{Type: d.Type.String(), DroppedAt: d.DroppedAt, Kind: uint8(d.Kind), ID: uint32(d.ID), HasID: d.HasID}
	}
	return tj
}

func decodeSchema(data []byte) (*Schema, error) {
	var in schemaJSON
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, fmt.Errorf("decode schema: %w", err)
	}
	s := &Schema{Version: in.Version, NextTableID: backend.TableID(in.NextTableID), Keyspaces: map[string]*Keyspace{}}
	for _, kj := range in.Keyspaces {
		ks := &Keyspace{Name: kj.Name, DurableWrites: kj.DurableWrites, Replication: kj.Replication, Tables: map[string]*Table{}}
		resolve := func(name string) (*types.Type, error) {
			if t := ks.Type(name); t != nil {
				return t, nil
			}
			return nil, fmt.Errorf("unknown type %s.%s", ks.Name, name)
		}
		for _, tj := range kj.Types {
			var names []string
			var fields []*types.Type
			for _, f := range tj.Fields {
				ft, err := types.ParseType(f[1], resolve)
				if err != nil {
					return nil, fmt.Errorf("type %s.%s: %w", ks.Name, tj.Name, err)
				}
				names, fields = append(names, f[0]), append(fields, ft)
			}
			ks.Types = append(ks.Types, types.UDTOf(ks.Name, tj.Name, names, fields))
		}
		for _, tj := range kj.Tables {
			t, err := decodeTable(ks.Name, tj, resolve)
			if err != nil {
				return nil, err
			}
			ks.Tables[t.Name] = t
		}
		s.Keyspaces[ks.Name] = ks
	}
	return s, nil
}

func decodeTable(keyspace string, tj tableJSON, resolve func(string) (*types.Type, error)) (*Table, error) {
	t := &Table{Keyspace: keyspace, Name: tj.Name, ID: tj.ID, StorageID: backend.TableID(tj.StorageID),
		NextColumnID: backend.ColumnID(tj.NextColumnID), Options: tj.Options, Indexes: tj.Indexes, View: tj.View, Dropped: map[string]Dropped{}}
	if t.Options.Extensions == nil {
		t.Options.Extensions = map[string][]byte{}
	}
	for _, cj := range tj.Columns {
		ct, err := types.ParseType(cj.Type, resolve)
		if err != nil {
			return nil, fmt.Errorf("column %s.%s.%s: %w", keyspace, tj.Name, cj.Name, err)
		}
		t.Columns = append(t.Columns, &Column{Name: cj.Name, Type: ct, Kind: ColumnKind(cj.Kind),
			Position: cj.Position, Desc: cj.Desc, ID: backend.ColumnID(cj.ID), HiddenUpTo: cj.Hidden})
	}
	for name, dj := range tj.Dropped {
		dt, err := types.ParseType(dj.Type, resolve)
		if err != nil {
			return nil, err
		}
		t.Dropped[name] = Dropped{Type: dt, DroppedAt: dj.DroppedAt, Kind: ColumnKind(dj.Kind), ID: backend.ColumnID(dj.ID), HasID: dj.HasID}
	}
	t.finish()
	return t, nil
}
