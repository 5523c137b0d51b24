#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace ks {

// A read-only SQLite database (nvprof's output), opened from a file or from bytes in memory. Kept
// free of sqlite3.h so that layers above io do not need SQLite's headers: the library is linked
// privately to ks_io.
//
// Nothing here throws: failures come back as one-line messages that name the database and, for
// queries, the table.
class SqliteDb {
public:
    // A prepared query. step() returns true while there is a row; afterwards ok() tells a clean end
    // from an error (corrupt page, interrupted).
    class Query {
    public:
        Query(Query&& other) noexcept;
        ~Query();
        bool step();
        bool ok() const { return m_error.empty(); }
        const std::string& error() const { return m_error; }
        int64_t integer(int column) const;
        bool isNull(int column) const;
        bool isBlob(int column) const;
        std::string_view text(int column) const;
        std::string_view blob(int column) const;

    private:
        friend class SqliteDb;
        Query(sqlite3_stmt* stmt, sqlite3* db) : m_stmt(stmt), m_db(db) {}
        sqlite3_stmt* m_stmt = nullptr;
        sqlite3* m_db = nullptr;
        std::string m_error;
        bool m_done = false;
    };

    ~SqliteDb();
    SqliteDb(const SqliteDb&) = delete;
    SqliteDb& operator=(const SqliteDb&) = delete;

    static std::unique_ptr<SqliteDb> openFile(const std::string& path, std::string& error);
    // The bytes must outlive the database (SQLite reads them in place).
    static std::unique_ptr<SqliteDb> openMemory(std::string_view bytes, std::string& error);

    // The names of the table's columns, empty when there is no such table (or the schema is
    // unreadable, or the name is a view or a virtual table; then error is set).
    std::vector<std::string> columns(std::string_view table, std::string* error = nullptr);
    bool hasTable(std::string_view table);

    // Prepares sql; on failure returns a query whose step() is false and whose error() says why.
    Query query(const std::string& sql);

    // Stops running queries at the next step once *flag becomes true (LoadOptions::cancel).
    void setInterrupt(const void* flag);

private:
    explicit SqliteDb(sqlite3* db) : m_db(db) {}
    // "table", "view", "index", "trigger", "virtual table", or empty when nothing has that name.
    std::string objectType(std::string_view name, std::string* error);
    sqlite3* m_db = nullptr;
};

} // namespace ks
