// Package auth keeps the node's roles and authenticates clients, as
// Cassandra's PasswordAuthenticator and CassandraRoleManager do: roles are
// stored in the node's own metadata with bcrypt hashes of their passwords,
// clients log in with SASL PLAIN, and the role statements (CREATE, ALTER,
// DROP ROLE and USER, GRANT and REVOKE of roles, LIST ROLES and USERS) are
// checked and applied with Cassandra's rules and messages. With
// CassandraAuthorizer it also keeps the permissions granted to roles on
// resources (data/ks/t, roles/r, ... as Cassandra names them) and checks
// them (Manager.Authorize) with Cassandra's Unauthorized messages.
//
// Invariants:
//  1. Every change is durable before it is visible: the metadata batch is
//     applied first, then the in-memory copy replaced (Manager.mu).
//  2. A password is never kept or logged in clear: only its bcrypt hash
//     ($2a$, cost 10, as Cassandra's auth_bcrypt_gensalt_log2_rounds) is.
//  3. member_of and role_members are two views of one relation: a role's
//     MemberOf lists the roles granted to it, and dropping a role removes
//     it from every MemberOf.
//  4. The default superuser (cassandra, password cassandra unless the
//     operator gives another) is created only when authentication is on and
//     no role exists, as CassandraRoleManager.setupDefaultRole does.
//  5. Without an authorizer every permission check passes
//     (AllowAllAuthorizer); superusers pass every check; a dropped role,
//     keyspace or table takes the permissions on it (and, for a role, those
//     granted to it) with it.
package auth
