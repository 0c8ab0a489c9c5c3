import Foundation
import OpenSwiftData

extension SchemaRules {
    /// One case per entity: extreme values of every attribute survive a save and a fresh read.
    func roundTripCases() -> [ConformanceCase] {
        schema.entities.filter { !$0.attributes.isEmpty }.map { e in
            ConformanceCase(
                suite: "schema", id: "SCH-VAL", title: "\(e.name): extreme values of every attribute read back as saved"
            ) { check in
                try self.roundTrip(e, check)
            }
        }
    }

    private func roundTrip(_ e: Schema.Entity, _ check: ConformanceCheck) throws {
        let container = try check.container(for: schema)
        let context = ModelContext(container)
        let builder = Builder(self, context, seed: check.seed)
        let uniqueMembers = Set(e.uniquenessConstraints.joined()).union(e.attributes.filter(\.isUnique).map(\.name))
        var extremes: [String: [Any?]] = [:]
        for a in e.attributes where !a.isTransient && !uniqueMembers.contains(a.name) {
            extremes[a.name] = SchemaRules.extremes(of: a.valueType, seed: check.seed)
        }
        let n = extremes.values.map(\.count).max() ?? 1
        var made: [any PersistentModel] = []
        for k in 0..<n {
            var fixed: [String: Any?] = [:]
            for (name, values) in extremes where !values.isEmpty { fixed[name] = values[k % values.count] }
            made.append(try builder.make(e, fixed: fixed))
        }
        try check.expectNoError("save \(n) models with extreme values") { try context.save() }
        let fresh = ModelContext(try check.reopen(container))
        for (k, original) in made.enumerated() {
            let stored = fresh.model(for: original.persistentModelID)
            for a in e.attributes where !a.isTransient {
                try check.within("model=\(k) attribute=\(a.name)") {
                    let want = SchemaRules.read(original, a)
                    let got = SchemaRules.read(stored, a)
                    try check.expect(
                        SchemaRules.same(want, got), "\(e.name).\(a.name) reads back as saved",
                        expected: SchemaRules.describe(want), actual: SchemaRules.describe(got))
                }
            }
        }
    }

    /// Extreme values of a type: boundaries, empty and long strings, Unicode, quotes; `nil` for
    /// optionals; every case of an enum; a few generated values of other types.
    static func extremes(of type: Any.Type, seed: UInt64) -> [Any?] {
        if let optional = type as? any _AutoOptional.Type {
            return [nil] + extremes(of: optional.wrappedType, seed: seed)
        }
        func ints<I: FixedWidthInteger>(_: I.Type) -> [Any?] {
            [I.min, I.max, I.zero, I(exactly: 1)!].map { $0 as Any? }
        }
        switch ObjectIdentifier(type) {
        case ObjectIdentifier(String.self):
            return [
                "", String(repeating: "x", count: 5_000), "e\u{301}", "👩‍👩‍👧‍👦 🇯🇵", "'%_\\\"; DROP TABLE x;--", "  padded  ",
                "line\nbreak",
            ]
        case ObjectIdentifier(Int.self): return ints(Int.self)
        case ObjectIdentifier(Int64.self): return ints(Int64.self)
        case ObjectIdentifier(Int32.self): return ints(Int32.self)
        case ObjectIdentifier(Int16.self): return ints(Int16.self)
        case ObjectIdentifier(Int8.self): return ints(Int8.self)
        case ObjectIdentifier(UInt8.self): return ints(UInt8.self)
        case ObjectIdentifier(UInt16.self): return ints(UInt16.self)
        case ObjectIdentifier(UInt32.self): return ints(UInt32.self)
        case ObjectIdentifier(UInt.self): return [UInt(0), UInt(Int64.max), UInt(1)]
        case ObjectIdentifier(UInt64.self): return [UInt64(0), UInt64(Int64.max), UInt64(1)]
        case ObjectIdentifier(Double.self):
            return [
                Double.greatestFiniteMagnitude, -Double.greatestFiniteMagnitude, Double.leastNonzeroMagnitude,
                Double.infinity, -Double.infinity, 0.0, -1.5, 0.1,
            ]
        case ObjectIdentifier(Float.self):
            return [
                Float.greatestFiniteMagnitude, -Float.greatestFiniteMagnitude, Float.leastNonzeroMagnitude, Float(0),
                Float(-1.5),
            ]
        case ObjectIdentifier(Bool.self): return [true, false]
        case ObjectIdentifier(Date.self):
            return [
                Date(timeIntervalSinceReferenceDate: 0), Date.distantPast, Date.distantFuture,
                Date(timeIntervalSince1970: 0), Date(timeIntervalSinceReferenceDate: 1_000_000.5),
            ]
        case ObjectIdentifier(UUID.self):
            return [
                UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
                UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)),
            ]
        case ObjectIdentifier(URL.self):
            return [
                URL(string: "https://example.com/a%20b?q=1&r=%25#frag")!, URL(string: "file:///tmp/x")!,
                URL(string: "mailto:o'brien@example.com")!,
            ]
        case ObjectIdentifier(Data.self): return [Data(), Data([0, 0, 0]), Data((0...255).map { UInt8($0) })]
        case ObjectIdentifier(Decimal.self):
            // The extremes a `DECIMAL` column keeps exactly (up to 15 significant digits; a longer
            // Decimal is stored rounded to a double, so it would not round-trip by design).
            return [
                Decimal(0), Decimal(string: "-1150.25")!, Decimal(string: "999999999999999")!,
                Decimal(string: "-0.00000000000000123456789012345")!, Decimal(string: "0.0000000000000000000000236")!,
            ]
        default:
            if let cases = type as? any CaseIterable.Type { return ValueSynthesizer.allCases(cases) }
            return (0..<3).compactMap { i in
                // try?: extremes are extra values; a type with none adds none.
                try? ValueSynthesizer.value(
                    of: type, row: Row(index: i, entity: "extremes", seed: seed), field: "value",
                    unique: false, nullRatio: 0)
            }
        }
    }
}
