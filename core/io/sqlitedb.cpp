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
    return std::unique_ptr<SqliteDb>(new SqliteDb(db));
}

std::vector<std::string> SqliteDb::columns(std::string_view table, std::string* error)
{
    std::vector<std::string> out;
    // table_info takes the name as an identifier; the names asked for are our own constants.
    Query q = query("PRAGMA table_info(\"" + std::string(table) + "\")");
    while (q.step())
        out.emplace_back(q.text(1));
    if (!q.ok() && error) *error = q.error();
    return out;
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
