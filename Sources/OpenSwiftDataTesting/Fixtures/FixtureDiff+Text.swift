import Foundation

extension FixtureDiff {
    /// The difference as text for a review (what `harness fixtures diff` prints), in three
    /// sections — schema, rows per entity, changed rows — and a last line saying whether the
    /// files differ. At most `limit` changed rows are printed per entity (`nil`: all), then
    /// `… and K more`.
    ///
    /// ```swift
    /// print(try FixtureDiff(old, new).text(limit: 10))
    /// // fixtures diff old.sqlite new.sqlite
    /// // schema: no differences
    /// // rows per entity  A  B  delta
    /// //   Item           3  4     +1
    /// // changed rows
    /// //   Item (by Z_PK): 1 added, 0 removed, 1 changed
    /// //     ~ Item#2  name: "Log" → "Oak log"
    /// //     + Item#4  name: "Board"
    /// // differ: 0 schema changes, 1 entity with changed rows
    /// ```
    public func text(limit: Int? = nil) -> String {
        var lines = ["fixtures diff \(a) \(b)"]
        if schema.isEmpty {
            lines.append("schema: no differences")
        } else {
            lines.append("schema")
            lines += schema.map { "  " + $0.line }
        }
        lines += Self.align(
            [["rows per entity", "A", "B", "delta"]]
                + counts.map { count in
                    let delta = count.delta > 0 ? "+\(count.delta)" : String(count.delta)
                    return [count.name, count.a.map(String.init) ?? "-", count.b.map(String.init) ?? "-", delta]
                })
        if rows.isEmpty {
            lines.append("changed rows: none")
        } else {
            lines.append("changed rows")
        }
        for entity in rows {
            lines.append(
                "  \(entity.name) (by \(entity.matchedBy.joined(separator: ", "))): \(entity.added) added, \(entity.removed) removed, \(entity.changed) changed"
            )
            let shown = limit.map { Array(entity.changes.prefix($0)) } ?? entity.changes
            for change in shown { lines.append("    " + change.line) }
            if shown.count < entity.changes.count {
                lines.append("    … and \(entity.changes.count - shown.count) more")
            }
        }
        if identical {
            lines.append("identical")
        } else {
            let entities = rows.count == 1 ? "1 entity" : "\(rows.count) entities"
            let changes = schema.count == 1 ? "1 schema change" : "\(schema.count) schema changes"
            lines.append("differ: \(changes), \(entities) with changed rows")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Rows as columns two spaces apart: the first column left-aligned (indented after the
    /// header), the others right-aligned.
    private static func align(_ rows: [[String]]) -> [String] {
        let cells = rows.enumerated().map { i, row in i == 0 ? row : ["  " + row[0]] + row.dropFirst() }
        let widths = (0..<4).map { column in cells.map { $0[column].count }.max() ?? 0 }
        return cells.map { row in
            row.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return column == 0 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }
    }
}

extension FixtureDiff.RowChange {
    /// The change as one line: `~ Item#2  name: "Log" → "Oak log"`, `+ Item#4  name: "Board"`,
    /// `- Item#1  name: "Plank"`.
    package var line: String {
        let mark =
            switch kind {
            case .added: "+"
            case .removed: "-"
            case .changed: "~"
            }
        let parts = values.map { value in
            switch kind {
            case .added: "\(value.property): \(value.new ?? "nil")"
            case .removed: "\(value.property): \(value.old ?? "nil")"
            case .changed: "\(value.property): \(value.old ?? "nil") → \(value.new ?? "nil")"
            }
        }
        return parts.isEmpty ? "\(mark) \(key)" : "\(mark) \(key)  \(parts.joined(separator: ", "))"
    }
}
