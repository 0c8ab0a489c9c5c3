import Foundation
import Testing

@testable import OpenSwiftData

@Model
final class DsAccount {
    var seq: Int
    var balance: Decimal
    var limit: Decimal?
    var owner: DsOwner?
    init(seq: Int, balance: Decimal, limit: Decimal?) {
        self.seq = seq
        self.balance = balance
        self.limit = limit
    }
}

@Model
final class DsOwner {
    var rating: Decimal
    init(rating: Decimal) { self.rating = rating }
}

private func dec(_ s: String) -> Decimal { Decimal(string: s, locale: Locale(identifier: "en_US_POSIX"))! }

/// Accounts whose balances and limits cover signs, zero, scales, exponents and long mantissas.
private struct DsFixture {
    static let issueBalances = ["-1150", "-900.5", "250", "99.5", "1200"]
    static let balances =
        issueBalances + [
            "0", "-0", "1", "1.0", "1.00", "0.1", "-0.1", "100", "100.000", "99.9999999999999",
            "1e30", "-1e30", "1.5e-20", "-1.5e-20", "123456789012345",
            "-123456789012345", "0.00000000000000000000000000000000001", "0.30000000000000004",
            "9.5", "10", "2", "20", "1e2", "123.456",
        ]
    let dir: ScratchDirectory
    let container: ModelContainer
    let context: ModelContext
    let all: [DsAccount]

    init(_ kind: StoreKind, balances: [String] = Self.balances) throws {
        dir = try ScratchDirectory(prefix: "decimal")
        container = try kind.makeContainer(for: [DsAccount.self, DsOwner.self], in: dir)
        let writer = ModelContext(container)
        for (i, b) in balances.enumerated() {
            let a = DsAccount(
                seq: i, balance: dec(b), limit: i % 3 == 0 ? nil : dec(balances[(i * 7) % balances.count]))
            writer.insert(a)
            if i % 4 != 0 {
                let o = DsOwner(rating: dec(balances[(i * 5) % balances.count]))
                writer.insert(o)
                a.owner = o
            }
        }
        try writer.save()
        // A fresh context, so every row is read back from the store.
        let reader = ModelContext(container)
        all = try reader.fetch(FetchDescriptor<DsAccount>(sortBy: [SortDescriptor(\.seq)]))
        context = reader
    }

    /// The store's rows for `predicate`, checked against `Predicate.evaluate` over every row.
    @discardableResult
    func rows(
        _ predicate: Predicate<DsAccount>, _ label: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [Int] {
        let got = try context.fetch(FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.seq)])).map(\.seq)
        let expected = try all.filter { try predicate.evaluate($0) }.map(\.seq)
        #expect(got == expected, "\(label)", sourceLocation: sourceLocation)
        return got
    }

    /// The store's order for `sorts`, checked against `sorted(using:)`.
    func order(_ sorts: [SortDescriptor<DsAccount>], _ label: String, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        let withTie = sorts + [SortDescriptor(\.seq)]
        let got = try context.fetch(FetchDescriptor(sortBy: withTie)).map(\.seq)
        let expected = all.sorted(using: withTie).map(\.seq)
        #expect(got == expected, "\(label)", sourceLocation: sourceLocation)
    }
}

/// `Decimal` is stored as a number in a `DECIMAL` column; predicates and sorts compare it as Swift's `Decimal` does
/// (SQLite's numeric comparison; text from earlier versions through DecimalCollation.swift), never byte-wise.
@Suite("DecimalSemantics")
struct DecimalSemanticsTests {
    @Test("the issue's balances: > 100 and the sort order are Swift's", arguments: StoreKind.allCases)
    func issueExample(_ kind: StoreKind) throws {
        let f = try DsFixture(kind, balances: DsFixture.issueBalances)
        let hundred = Decimal(100)
        let over = try f.rows(#Predicate { $0.balance > hundred }, "> 100")
        #expect(over.map { f.all[$0].balance } == [dec("250"), dec("1200")])
        let sorted = try f.context.fetch(FetchDescriptor<DsAccount>(sortBy: [SortDescriptor(\.balance)])).map(\.balance)
        #expect(sorted == ["-1150", "-900.5", "99.5", "250", "1200"].map(dec))
        try f.order([SortDescriptor(\.balance)], "ascending")
    }

    @Test("comparisons with every value as the captured operand", arguments: StoreKind.allCases)
    func comparisons(_ kind: StoreKind) throws {
        let f = try DsFixture(kind)
        for s in DsFixture.balances {
            let x = dec(s)
            try f.rows(#Predicate { $0.balance < x }, "< \(s)")
            try f.rows(#Predicate { $0.balance <= x }, "<= \(s)")
            try f.rows(#Predicate { $0.balance > x }, "> \(s)")
            try f.rows(#Predicate { $0.balance >= x }, ">= \(s)")
            try f.rows(#Predicate { $0.balance == x }, "== \(s)")
            try f.rows(#Predicate { $0.balance != x }, "!= \(s)")
            try f.rows(#Predicate { x < $0.balance }, "captured on the left < \(s)")
            try f.rows(#Predicate { !($0.balance >= x) }, "! >= \(s)")
        }
        try f.rows(#Predicate { $0.balance == $0.balance }, "column == itself")
        try f.rows(#Predicate { $0.balance < 1 }, "literal")
    }

    @Test("equal values of different scales (1, 1.0, 1.00; 0, -0) are equal", arguments: StoreKind.allCases)
    func scales(_ kind: StoreKind) throws {
        let f = try DsFixture(kind)
        let one = dec("1.000")
        let zero = dec("-0.0")
        let ones = try f.rows(#Predicate { $0.balance == one }, "== 1.000")
        #expect(ones.count == 3)
        try f.rows(#Predicate { $0.balance == zero }, "== -0.0")
        try f.rows(#Predicate { $0.balance != one }, "!= 1.000")
    }

    @Test("ranges and captured arrays", arguments: StoreKind.allCases)
    func rangesAndArrays(_ kind: StoreKind) throws {
        let f = try DsFixture(kind)
        let (lo, hi) = (dec("-900.5"), dec("250"))
        try f.rows(#Predicate { (lo...hi).contains($0.balance) }, "closed range")
        try f.rows(#Predicate { (lo..<hi).contains($0.balance) }, "half-open range")
        let closed = lo...hi
        let partial = dec("99.5")...
        try f.rows(#Predicate { closed.contains($0.balance) }, "captured closed range")
        try f.rows(#Predicate { partial.contains($0.balance) }, "captured partial range")
        let values = [dec("1.00"), dec("100"), dec("-0"), dec("1e30")]
        try f.rows(#Predicate { values.contains($0.balance) }, "captured array")
        let optionals: [Decimal?] = [dec("1.0"), nil]
        try f.rows(#Predicate { optionals.contains($0.limit) }, "captured array with nil")
    }

    @Test("optional Decimal with nil, flatMap, ?? and a to-one attribute", arguments: StoreKind.allCases)
    func optionals(_ kind: StoreKind) throws {
        let f = try DsFixture(kind)
        let x = dec("99.5")
        let none: Decimal? = nil
        let some: Decimal? = dec("100.0")
        try f.rows(#Predicate { $0.limit == nil }, "== nil")
        try f.rows(#Predicate { $0.limit != nil }, "!= nil")
        try f.rows(#Predicate { $0.limit == none }, "== captured nil")
        try f.rows(#Predicate { $0.limit == some }, "== captured 100.0")
        try f.rows(#Predicate { $0.limit.flatMap { $0 > x } == true }, "flatMap >")
        try f.rows(#Predicate { ($0.limit ?? 0) > x }, "?? 0 >")
        try f.rows(#Predicate { ($0.limit ?? 0) == $0.balance }, "(limit ?? 0) == balance")
        try f.rows(#Predicate { $0.owner?.rating == some }, "to-one ==")
        try f.rows(#Predicate { $0.owner.flatMap { $0.rating >= x } == true }, "to-one >=")
    }

    @Test("sorts follow sorted(using:)", arguments: StoreKind.allCases)
    func sorts(_ kind: StoreKind) throws {
        let f = try DsFixture(kind)
        try f.order([SortDescriptor(\.balance)], "balance ascending")
        try f.order([SortDescriptor(\.balance, order: .reverse)], "balance descending")
        try f.order([SortDescriptor(\.limit)], "optional limit ascending")
        try f.order([SortDescriptor(\.limit, order: .reverse), SortDescriptor(\.balance)], "limit descending, balance")
        try f.order([SortDescriptor(\.owner?.rating)], "to-one rating")
    }

    @Test("arithmetic on Decimal throws unsupportedPredicate naming Decimal", arguments: StoreKind.allCases)
    func arithmetic(_ kind: StoreKind) throws {
        let f = try DsFixture(kind)
        let one = Decimal(1)
        let e = expectSwiftDataError(.unsupportedPredicate, "Decimal +") {
            _ = try f.context.fetch(FetchDescriptor(predicate: #Predicate<DsAccount> { $0.balance + one > 100 }))
        }
        #expect(e.map { "\($0)".contains("Decimal") } == true)
        // Arithmetic on captured values only is evaluated in Swift.
        try f.rows(#Predicate { $0.balance > one + one }, "captured arithmetic")
    }

    @Test("a Decimal is a number in its DECIMAL column and reads back as the same Decimal")
    func encoding() throws {
        #expect(try dec("99.5").sqlValue() == .real(99.5))
        #expect(try dec("-1150").sqlValue() == .integer(-1150))
        for s in DsFixture.balances {
            let d = dec(s)
            let stored = try d.sqlValue()
            let back = Decimal(sqlValue: stored)
            #expect(back == d, "\(s) → \(stored)")
            #expect(try back?.sqlValue() == stored, "\(s): the stored number is a fixed point")
        }
        // Text written by earlier versions still reads.
        #expect(Decimal(sqlValue: .text("99.999999999999999999")) == dec("99.999999999999999999"))
    }

    @Test(
        "ATT-11 a Decimal the DECIMAL column cannot keep exactly is stored rounded, reported once per property",
        arguments: StoreKind.allCases)
    func precisionLimit(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "decimal-precision")
        let container = try kind.makeContainer(for: [DsAccount.self, DsOwner.self], in: dir)
        let context = ModelContext(container)
        context.insert(DsAccount(seq: 1, balance: dec("12.5"), limit: nil))
        try context.save()
        #expect(container.storageWarnings.isEmpty, "an exact value is no warning")
        context.insert(DsAccount(seq: 2, balance: dec("99.999999999999999999"), limit: Decimal(UInt64.max)))
        context.insert(DsAccount(seq: 3, balance: Decimal(UInt64.max), limit: nil))
        try context.save()
        let rows = try ModelContext(container).fetch(FetchDescriptor<DsAccount>(sortBy: [SortDescriptor(\.seq)]))
        #expect(rows.map(\.balance) == [dec("12.5"), dec("100"), dec("18446744073709552000")])
        #expect(rows.map(\.limit) == [nil, dec("18446744073709552000"), nil])
        let warnings = container.storageWarnings
        #expect(warnings.count == 2, "one per property: \(warnings)")
        #expect(warnings.first?.hasPrefix("DsAccount.balance: the Decimal 99.999999999999999999") == true)
        #expect(warnings.first?.contains("stored as 100") == true, "\(warnings)")
        #expect(warnings.last?.hasPrefix("DsAccount.limit: the Decimal 18446744073709551615") == true)
        // A captured Decimal binds the same double, so it finds the rounded row.
        let big = Decimal(UInt64.max)
        #expect(
            try ModelContext(container).fetchCount(
                FetchDescriptor<DsAccount>(predicate: #Predicate { $0.balance == big })) == 1)
        #expect(try Decimal(UInt64.max).sqlValue() == .real(18_446_744_073_709_551_616.0))
    }

    @Test(
        "ATT-11 refusesInexactDecimals refuses such a Decimal at save with invalidValue; nothing is written",
        arguments: StoreKind.allCases)
    func strictPrecision(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "decimal-strict")
        var config =
            kind == .memory
            ? ModelConfiguration(isStoredInMemoryOnly: true) : ModelConfiguration(url: dir.file("strict.store"))
        config.refusesInexactDecimals = true
        let container = try ModelContainer(for: DsAccount.self, DsOwner.self, configurations: config)
        let context = ModelContext(container)
        context.insert(DsAccount(seq: 1, balance: dec("12.5"), limit: dec("99.9999999999999")))
        context.insert(DsAccount(seq: 2, balance: Decimal(UInt64.max), limit: nil))
        let e = expectSwiftDataError(.invalidValue, "20 significant digits") { try context.save() }
        #expect(
            e.map {
                "\($0)".contains("18446744073709551615") && "\($0)".contains("DsAccount.balance")
                    && "\($0)".contains("refusesInexactDecimals")
            } == true, "\(String(describing: e))")
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<DsAccount>()) == 0)
        #expect(context.insertedModelsArray.count == 2, "the pending inserts are kept")
        #expect(container.storageWarnings.isEmpty)
    }
}
