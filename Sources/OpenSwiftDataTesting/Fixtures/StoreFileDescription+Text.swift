import Foundation

extension StoreFileDescription {
    /// The description as aligned text, one section per part (what `harness fixtures describe`
    /// prints): the file, its metadata, its entities with keys and rows, each entity's version
    /// hash, its tables with row counts and its indexes.
    ///
    /// ```swift
    /// print(try StoreFileDescription(contentsOf: url).text)
    /// // store default.store: page size 4096, journal mode wal
    /// // metadata
    /// //   uuid                  5B0C…
    /// // entities (Z_PRIMARYKEY)
    /// //   Z_ENT  name       parent  Z_MAX  rows  table
    /// //       1  Component  -           2     2  ZCOMPONENT
    /// ```
    public var text: String {
        var lines = ["store \(path): page size \(pageSize), journal mode \(journalMode)", "metadata"]
        let m = metadata
        lines += Self.align(
            [
                ["uuid", m.uuid],
                ["store type", m.storeType],
                ["framework version", m.frameworkVersion.map(String.init) ?? "-"],
                ["maximum framework", m.maximumFrameworkVersion.map(String.init) ?? "-"],
                [
                    "version identifiers",
                    m.versionIdentifiers.isEmpty ? "-" : m.versionIdentifiers.joined(separator: ", "),
                ],
                ["hashes version", m.versionHashesVersion.map(String.init) ?? "-"],
                ["hashes digest", m.versionHashesDigest ?? "-"],
                ["checksum", m.versionChecksum ?? "-"],
            ], rightAligned: [])
        lines.append("entities (Z_PRIMARYKEY)")
        lines += Self.align(
            [["Z_ENT", "name", "parent", "Z_MAX", "rows", "table"]]
                + entities.map {
                    [String($0.number), $0.name, $0.parent ?? "-", String($0.maxKey), String($0.rows), $0.table ?? "-"]
                },
            rightAligned: [0, 3, 4])
        lines.append("version hashes (NSStoreModelVersionHashes)")
        lines += Self.align(m.versionHashes.sorted { $0.key < $1.key }.map { [$0.key, $0.value] }, rightAligned: [])
        lines.append("tables")
        lines += Self.align(tables.map { [$0.name, String($0.rows)] }, rightAligned: [1])
        lines.append("indexes")
        lines += Self.align(
            indexes.map {
                [$0.name, "\($0.table) (\($0.columns.joined(separator: ", ")))", $0.unique ? "unique" : ""]
            },
            rightAligned: [])
        return lines.map { $0.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }
            .joined(separator: "\n") + "\n"
    }

    /// The rows as columns two spaces apart, indented by two; `rightAligned` columns pad on the left.
    private static func align(_ rows: [[String]], rightAligned: Set<Int>) -> [String] {
        guard let width = rows.map(\.count).max() else { return ["  (none)"] }
        let widths = (0..<width).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
        return rows.map { row in
            "  "
                + row.enumerated().map { column, cell in
                    let pad = String(repeating: " ", count: widths[column] - cell.count)
                    return rightAligned.contains(column) ? pad + cell : cell + pad
                }.joined(separator: "  ")
        }
    }
}
