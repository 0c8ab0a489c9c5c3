import Foundation
import OpenSwiftData
import CSQLite

@Model final class Item {
    var name: String
    var value: Int
    var score: Double
    init(name: String, value: Int, score: Double) { self.name = name; self.value = value; self.score = score }
}
let n = 100_000
func time(_ label: String, _ body: () throws -> Void) rethrows -> Double {
    let t0 = DispatchTime.now().uptimeNanoseconds
    try body()
    let dt = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6
    print(label, String(format: "%.1f ms", dt))
    return dt
}
let dir = FileManager.default.temporaryDirectory.appendingPathComponent("perf-\(getpid())")
try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: dir) }
let container = try ModelContainer(for: Item.self, configurations: ModelConfiguration(url: dir.appendingPathComponent("a.store")))
let ctx = ModelContext(container)
let ours = try time("ours insert+save") {
    for i in 0..<n { ctx.insert(Item(name: "item \(i)", value: i, score: Double(i) * 0.5)) }
    try ctx.save()
}
let ctx2 = ModelContext(container)
let oursFetch = try time("ours fetch all") { _ = try ctx2.fetch(FetchDescriptor<Item>()).count }
let raw = try SQLiteConnection(path: dir.appendingPathComponent("b.sqlite").path)
try raw.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, value INTEGER, score REAL)")
let rawT = try time("raw insert") {
    try raw.execute("BEGIN IMMEDIATE")
    let st = try raw.prepare("INSERT INTO t (id, name, value, score) VALUES (?, ?, ?, ?)")
    for i in 0..<n {
        st.bind(Int64(i + 1), at: 1); st.bindText("item \(i)", at: 2); st.bind(Int64(i), at: 3); st.bind(Double(i) * 0.5, at: 4)
        try st.execute()
    }
    try raw.execute("COMMIT")
}
struct Row { var name: String; var value: Int; var score: Double }
let rawF = try time("raw fetch all") {
    let st = try raw.prepare("SELECT id, name, value, score FROM t")
    var rows: [Row] = []
    while try st.step() { rows.append(Row(name: st.text(at: 1), value: Int(st.int64(at: 2)), score: st.double(at: 3))) }
    _ = rows.count
}
print(String(format: "insert ratio %.2f, fetch ratio %.2f", ours / rawT, oursFetch / rawF))
