// A `Decimal` with more significant digits than a double keeps, such as `Decimal(UInt64.max)`:
// Apple's store saves it, as Core Data stores a Decimal, a REAL, so it reads back rounded.
import Foundation
import SwiftData
import Testing

@Model
final class LedgerEntry {
    var memo: String
    var amount: Decimal
    var limit: Decimal?
    init(memo: String, amount: Decimal, limit: Decimal? = nil) {
        self.memo = memo
        self.amount = amount
        self.limit = limit
    }
}

@Suite("Compatibility: a Decimal beyond a double's precision")
struct DecimalBeyondDoubleTests {
    @Test(
        "ATT-11 Decimal(UInt64.max) saves and reads back as the double the store keeps, 18446744073709552000",
        arguments: [true, false])
    func savesRounded(inMemory: Bool) throws {
        let url = URL.temporaryDirectory.appending(path: "ledger-\(UUID().uuidString).store")
        defer { try? FileManager.default.removeItem(at: url) }
        let config = inMemory ? ModelConfiguration(isStoredInMemoryOnly: true) : ModelConfiguration(url: url)
        let container = try ModelContainer(for: LedgerEntry.self, configurations: config)
        let context = ModelContext(container)
        let posix = Locale(identifier: "en_US_POSIX")
        context.insert(LedgerEntry(memo: "a max", amount: Decimal(UInt64.max), limit: Decimal(UInt64.max)))
        context.insert(LedgerEntry(memo: "b tenth", amount: Decimal(string: "0.1", locale: posix)!))
        try context.save()

        let rows = try ModelContext(container).fetch(FetchDescriptor<LedgerEntry>(sortBy: [SortDescriptor(\.memo)]))
        let rounded = Decimal(string: "18446744073709552000", locale: posix)!
        #expect(rows.map(\.amount) == [rounded, Decimal(string: "0.1", locale: posix)!])
        #expect(rows.map(\.limit) == [rounded, nil])
        #expect(rows[0].amount != Decimal(UInt64.max), "the store keeps a double, not the Decimal's 20 digits")
    }
}
