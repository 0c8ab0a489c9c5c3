// Store URLs built the way apps build them (`URL.applicationSupportDirectory`,
// `URL.documentsDirectory`), and history read after a remembered token, compiled unchanged.
import Foundation
import SwiftData
import Testing

@Model
final class Memo {
    var text: String
    init(text: String) { self.text = text }
}

@Suite("Compatibility: store locations and history after a token")
struct StoreLocationTests {
    @Test("CFG-08 a store URL under URL.applicationSupportDirectory or .documentsDirectory is an absolute file URL")
    func directories() throws {
        let support = URL.applicationSupportDirectory.appending(path: "Memos.store")
        let documents = URL.documentsDirectory.appending(path: "Memos.store")
        for url in [support, documents, URL.cachesDirectory] {
            #expect(url.isFileURL)
            #expect(url.path.hasPrefix("/"))
        }
        // An app creates Application Support before opening a store in it; a store opens there.
        let base = URL.temporaryDirectory.appending(path: "support-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        let container = try ModelContainer(
            for: Memo.self, configurations: ModelConfiguration(url: base.appending(path: "Memos.store")))
        let context = ModelContext(container)
        context.insert(Memo(text: "a"))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Memo>()) == 1)
    }

    @Test("HIS-04 HistoryDescriptor(after:) returns the transactions after the token, all for nil")
    func historyAfterToken() throws {
        let container = try ModelContainer(
            for: Memo.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        var lastToken: DefaultHistoryToken?
        context.insert(Memo(text: "first"))
        try context.save()
        let all = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: lastToken))
        #expect(all.count == 1)
        lastToken = all.last?.token
        context.insert(Memo(text: "second"))
        try context.save()
        context.insert(Memo(text: "third"))
        try context.save()
        let newer = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(after: lastToken))
        #expect(newer.count == 2)
        #expect(newer.allSatisfy { $0.token > lastToken! })
        let limited = try context.fetchHistory(
            HistoryDescriptor<DefaultHistoryTransaction>(after: lastToken, fetchLimit: 1))
        #expect(limited.map(\.token) == [newer[0].token])
    }
}
