#include "core/io/sqlitedb.h"

#include <atomic>
#include <sqlite3.h>

namespace ks {

namespace {

std::string lastError(sqlite3* db)
{
    return db ? sqlite3_errmsg(db) : "out of memory";
}

int interruptCheck(void* flag)
{
    return static_cast<const std::atomic<bool>*>(flag)->load(std::memory_order_relaxed) ? 1 : 0;
}

// A database is a program: a view or trigger in it could run anything SQL can (a recursive query
// that never ends, strings of any size made from nothing). Only what our own statements name
// directly is allowed; anything reached through a view or a trigger is refused at prepare time.
int authorize(void*, int action, const char*, const char*, const char*, const char* triggerOrView)
{
    if (triggerOrView) return SQLITE_DENY;
    switch (action) {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_PRAGMA:
    case SQLITE_FUNCTION:
    case SQLITE_RECURSIVE:
        return SQLITE_OK;
    default:
        return SQLITE_DENY;
    }
}

// The longest string or blob a value may have: nvprof's longest are kernel signatures of a few KB.
constexpr int kMaxValueBytes = 16 << 20;
// SQLite's own memory (page cache, sorter, values) for the whole process; only this reader uses it.
constexpr sqlite3_int64 kHeapLimit = sqlite3_int64(1) << 30;

// Settings every connection gets before its first query.
void harden(sqlite3* db)
{
    // Functions a schema names (in views, triggers, defaults) run only if they are harmless.
    sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, nullptr);
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, kMaxValueBytes);
    sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
    sqlite3_set_authorizer(db, authorize, nullptr);
    if (sqlite3_hard_heap_limit64(-1) == 0) sqlite3_hard_heap_limit64(kHeapLimit);
}

} // namespace

SqliteDb::Query::Query(Query&& other) noexcept
    : m_stmt(other.m_stmt), m_db(other.m_db), m_error(std::move(other.m_error)), m_done(other.m_done)
{
    other.m_stmt = nullptr;
}

SqliteDb::Query::~Query()
{
    sqlite3_finalize(m_stmt);
}

bool SqliteDb::Query::step()
{
    if (!m_stmt || m_done) return false;
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW) return true;
    m_done = true;
    if (rc != SQLITE_DONE) m_error = lastError(m_db);
    return false;
}

int64_t SqliteDb::Query::integer(int column) const
{
    return sqlite3_column_int64(m_stmt, column);
}

bool SqliteDb::Query::isNull(int column) const
{
    return sqlite3_column_type(m_stmt, column) == SQLITE_NULL;
}

bool SqliteDb::Query::isBlob(int column) const
{
    return sqlite3_column_type(m_stmt, column) == SQLITE_BLOB;
}

std::string_view SqliteDb::Query::text(int column) const
{
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, column));
    if (!p) return {};
    return std::string_view(p, size_t(sqlite3_column_bytes(m_stmt, column)));
}

std::string_view SqliteDb::Query::blob(int column) const
{
    const auto* p = static_cast<const char*>(sqlite3_column_blob(m_stmt, column));
    if (!p) return {};
    return std::string_view(p, size_t(sqlite3_column_bytes(m_stmt, column)));
}

SqliteDb::~SqliteDb()
{
    sqlite3_close_v2(m_db);
}

std::unique_ptr<SqliteDb> SqliteDb::openFile(const std::string& path, std::string& error)
{
    sqlite3* db = nullptr;
    // Read-only and without a mutex: the reader is the only user of the connection.
    const int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
        error = "cannot open as SQLite: " + lastError(db);
        sqlite3_close_v2(db);
        return nullptr;
    }
    harden(db);
    return std::unique_ptr<SqliteDb>(new SqliteDb(db));
}

std::unique_ptr<SqliteDb> SqliteDb::openMemory(std::string_view bytes, std::string& error)
{
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
        error = "cannot open an in-memory SQLite database: " + lastError(db);
        sqlite3_close_v2(db);
        return nullptr;
    }
    // SQLite does not write to a read-only deserialized image, so the const_cast is safe.
    auto* data = reinterpret_cast<unsigned char*>(const_cast<char*>(bytes.data()));
    const int rc = sqlite3_deserialize(db, "main", data, sqlite3_int64(bytes.size()),
                                       sqlite3_int64(bytes.size()), SQLITE_DESERIALIZE_READONLY);
    if (rc != SQLITE_OK) {
        error = "cannot read the SQLite image: " + lastError(db);
        sqlite3_close_v2(db);
        return nullptr;
    }
    harden(db);
    return std::unique_ptr<SqliteDb>(new SqliteDb(db));
}

std::vector<std::string> SqliteDb::columns(std::string_view table, std::string* error)
{
    std::vector<std::string> out;
    // Only a real table is read: a view of that name, or a virtual table, is refused.
    const std::string type = objectType(table, error);
    if (type.empty()) return out;
    if (type != "table") {
        if (error) *error = std::string(table) + " is a " + type + ", not a table: it is not read";
        return out;
    }
    // table_xinfo takes the name as an identifier; the names asked for are our own constants.
    Query q = query("PRAGMA table_xinfo(\"" + std::string(table) + "\")");
    while (q.step()) {
        // A generated column that is not stored computes its values when read: code, not data.
        if (q.integer(6) == 2) {
            if (error)
                *error = "column " + std::string(q.text(1)) + " of " + std::string(table) +
                         " is computed, not stored: it is not read";
            return {};
        }
        out.emplace_back(q.text(1));
    }
    if (!q.ok() && error) *error = q.error();
    return out;
}

std::string SqliteDb::objectType(std::string_view name, std::string* error)
{
    sqlite3_stmt* stmt = nullptr;
    const char* sql = "SELECT type, sql FROM sqlite_master WHERE name = ?1";
    if (sqlite3_prepare_v2(m_db, sql, -1, &stmt, nullptr) != SQLITE_OK) {
        if (error) *error = lastError(m_db);
        return {};
    }
    Query q(stmt, m_db);
    sqlite3_bind_text(stmt, 1, name.data(), int(name.size()), SQLITE_TRANSIENT);
    std::string type;
    if (q.step()) {
        type = std::string(q.text(0));
        const std::string_view create = q.text(1);
        constexpr std::string_view kVirtual = "CREATE VIRTUAL";
        if (create.size() >= kVirtual.size() &&
            sqlite3_strnicmp(create.data(), kVirtual.data(), int(kVirtual.size())) == 0)
            type = "virtual table";
    }
    if (!q.ok() && error) *error = q.error();
    return type;
}

bool SqliteDb::hasTable(std::string_view table)
{
    return !columns(table).empty();
}

SqliteDb::Query SqliteDb::query(const std::string& sql)
{
    sqlite3_stmt* stmt = nullptr;
    const int rc = sqlite3_prepare_v2(m_db, sql.c_str(), int(sql.size()), &stmt, nullptr);
    Query q(stmt, m_db);
    if (rc != SQLITE_OK) {
        q.m_error = lastError(m_db);
        q.m_done = true;
    }
    return q;
}

void SqliteDb::setInterrupt(const void* flag)
{
    if (flag)
        sqlite3_progress_handler(m_db, 1000, interruptCheck, const_cast<void*>(flag));
    else
        sqlite3_progress_handler(m_db, 0, nullptr, nullptr);
}

} // namespace ks
