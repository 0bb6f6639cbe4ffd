package protocol

// SchemaChangeType is a schema change's <change_type> (§4.2.6).
type SchemaChangeType string

// Schema change types (§4.2.6).
const (
	SchemaCreated SchemaChangeType = "CREATED"
	SchemaUpdated SchemaChangeType = "UPDATED"
	SchemaDropped SchemaChangeType = "DROPPED"
)

// SchemaChangeTarget is what a schema change touched (§4.2.6 <target>).
type SchemaChangeTarget string

// Schema change targets (§4.2.6). An index change is a change to its table
// (§4.2.5.5).
const (
	TargetKeyspace  SchemaChangeTarget = "KEYSPACE"
	TargetTable     SchemaChangeTarget = "TABLE"
	TargetType      SchemaChangeTarget = "TYPE"
	TargetFunction  SchemaChangeTarget = "FUNCTION"
	TargetAggregate SchemaChangeTarget = "AGGREGATE"
)

// SchemaChange is <change_type><target><options> (§4.2.6), shared by the
// SCHEMA_CHANGE event and the Schema_change result. Which fields are sent
// depends on Target: KEYSPACE sends Keyspace; TABLE and TYPE add Name;
// FUNCTION and AGGREGATE add ArgTypes, one CQL type per argument.
type SchemaChange struct {
	Change   SchemaChangeType
	Target   SchemaChangeTarget
	Keyspace string
	Name     string
	ArgTypes []string
}

func appendSchemaChange(dst []byte, c *SchemaChange) []byte {
	dst = appendString(dst, string(c.Change))
	dst = appendString(dst, string(c.Target))
	dst = appendString(dst, c.Keyspace)
	switch c.Target {
	case TargetTable, TargetType:
		dst = appendString(dst, c.Name)
	case TargetFunction, TargetAggregate:
		dst = appendString(dst, c.Name)
		dst = appendStringList(dst, c.ArgTypes)
	}
	return dst
}

func (r *reader) readSchemaChange(c *SchemaChange) {
	change := r.readString("schema change type")
	target := r.readString("schema change target")
	if r.failed() {
		return
	}
	c.Change, c.Target = SchemaChangeType(change), SchemaChangeTarget(target)
	switch c.Change {
	case SchemaCreated, SchemaUpdated, SchemaDropped:
	default:
		// Cassandra's wording for a bad enum value (CBUtil.readEnumValue).
		r.fail("Invalid value '%s' for Change", change)
		return
	}
	c.Keyspace = r.readString("keyspace")
	switch c.Target {
	case TargetKeyspace:
	case TargetTable, TargetType:
		c.Name = r.readString("schema change name")
	case TargetFunction, TargetAggregate:
		c.Name = r.readString("schema change name")
		c.ArgTypes = r.readStringList("argument types")
	default:
		r.fail("Invalid value '%s' for Target", target)
	}
}
