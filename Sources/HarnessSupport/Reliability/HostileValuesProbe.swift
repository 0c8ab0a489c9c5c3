import Foundation
import OpenSwiftData
import OpenSwiftDataTesting

extension ReliabilityProbe {
    /// Stores ``HostileValues`` on both store kinds and checks they read back exactly, that
    /// `==`, `contains`, `starts(with:)` and `localizedStandardContains` with every hostile
    /// string as the needle return what `Predicate.evaluate` returns on the same objects, that
    /// comparisons with extreme numbers agree too, that NaN is refused with a typed
    /// `SwiftDataError.invalidValue` at save, that `&&` and `||` of 200 terms work, and that a
    /// predicate too deep for SQLite gives a typed error (or the right rows), never a crash.
    package static let hostileValues = ReliabilityProbe(
        name: "hostile-values",
        title:
            "Hostile strings, extreme numbers and deep predicates: fetches agree with Predicate.evaluate on both stores",
        runsInWorker: true, body: HostileValuesProbe.run)
}

/// The hostile-values experiment (runs inside one worker).
enum HostileValuesProbe {
    /// Terms of the `&&` and `||` chains that must work.
    static let chainTerms = 200
    /// Terms of the chain that is too deep for SQLite's expression-depth limit (1,000).
    static let tooDeepTerms = 2_000

    /// The rows: one per hostile string, numbers taken in turn from the extreme lists.
    static var rows: [(serial: Int, text: String, int: Int, double: Double)] {
        HostileValues.strings.enumerated().map { i, s in
            (
                i, s, HostileValues.integers[i % HostileValues.integers.count],
                HostileValues.doubles[i % HostileValues.doubles.count]
            )
        }
    }

    static func run(_ run: ReliabilityRun, _ tally: inout ReliabilityTally) throws -> String {
        tally.set("hostile strings", HostileValues.strings.count)
        var signedZeros = 0
        tally.set("predicates compared", 0)
        tally.set("mismatches", 0)
        tally.set("round-trip differences", 0)
        tally.set("typed errors", 0)
        tally.set("untyped errors", 0)
        for store in StoreKind.allCases {
            WorkerIO.error("hostile-values: \(store)")
            let container = try store.makeContainer(
                ReliabilitySchemas.values, in: run.directory, name: "hostile-\(store)")
            let context = ModelContext(container)
            for r in rows {
                context.insert(ReliabilityValue(serial: r.serial, text: r.text, int: r.int, double: r.double))
            }
            try context.save()
            // Read back through a new container for the file, a fresh context for memory.
            let reader =
                store == .disk
                ? try store.makeContainer(ReliabilitySchemas.values, in: run.directory, name: "hostile-\(store)")
                : container
            let fresh = ModelContext(reader)
            let objects = try fresh.fetch(FetchDescriptor<ReliabilityValue>(sortBy: [SortDescriptor(\.serial)]))
            var t = Clock.now
            func lap(_ what: String) {
                WorkerIO.error("hostile-values: \(store) \(what) \(String(format: "%.2f", Clock.seconds(since: t))) s")
                t = Clock.now
            }
            if roundTrip(objects, store, &tally) { signedZeros += 1 }
            lap("round trip")
            strings(objects, fresh, store, &tally)
            lap("strings")
            numbers(objects, fresh, store, &tally)
            lap("numbers")
            deep(objects, fresh, store, &tally)
            lap("deep predicates")
            nan(fresh, store, count: objects.count, &tally)
        }
        tally.set("stores reading -0.0 back as +0.0", signedZeros)
        return
            "\(HostileValues.strings.count) hostile strings, extreme numbers and 200-term chains on both stores: \(tally.value("predicates compared")) predicates agree with Predicate.evaluate; NaN and a too-deep predicate give typed errors"
    }

    /// Every value reads back as written: strings NFC-normalised, integers exactly, doubles bit for
    /// bit (each distinct value reported once) except the sign of zero. Returns whether `-0.0`
    /// read back as `+0.0`: equal in Swift (`-0.0 == 0.0`), so a figure, not a failure (SQLite
    /// stores an integral REAL as an integer, which drops the sign; so does SwiftData's Core
    /// Data store on Apple platforms).
    static func roundTrip(_ objects: [ReliabilityValue], _ store: StoreKind, _ tally: inout ReliabilityTally) -> Bool {
        var signedZeroLost = false
        let expected = rows
        guard objects.map(\.serial) == expected.map(\.serial) else {
            tally.add("round-trip differences")
            tally.fail(
                "\(store): read back serials \(objects.map(\.serial).prefix(10))…, expected 0..<\(expected.count)")
            return false
        }
        var seenDoubles: Set<UInt64> = []
        for (o, r) in zip(objects, expected) {
            let nfc = r.text.precomposedStringWithCanonicalMapping
            if o.text != r.text || Array(o.text.unicodeScalars) != Array(nfc.unicodeScalars) {
                tally.add("round-trip differences")
                tally.fail("\(store): string \(r.serial) \(debug(r.text)) read back as \(debug(o.text))")
            }
            if o.int != r.int {
                tally.add("round-trip differences")
                tally.fail("\(store): Int \(r.int) read back as \(o.int)")
            }
            if o.double == r.double && o.double.bitPattern != r.double.bitPattern && r.double == 0 {
                signedZeroLost = true
            } else if o.double.bitPattern != r.double.bitPattern && seenDoubles.insert(r.double.bitPattern).inserted {
                tally.add("round-trip differences")
                tally.fail(
                    "\(store): Double \(r.double) (bits \(hex(r.double))) read back as \(o.double) (bits \(hex(o.double)))"
                )
            }
        }
        return signedZeroLost
    }

    /// The four string predicates with every hostile string and fragment as the needle.
    static func strings(
        _ objects: [ReliabilityValue], _ context: ModelContext, _ store: StoreKind, _ tally: inout ReliabilityTally
    ) {
        for needle in HostileValues.strings + HostileValues.fragments {
            let cases: [(String, Predicate<ReliabilityValue>)] = [
                ("==", #Predicate { $0.text == needle }),
                ("contains", #Predicate { $0.text.contains(needle) }),
                ("starts(with:)", #Predicate { $0.text.starts(with: needle) }),
                ("localizedStandardContains", #Predicate { $0.text.localizedStandardContains(needle) }),
            ]
            for (name, predicate) in cases {
                compare("\(store): text \(name) \(debug(needle))", predicate, objects, context, &tally)
            }
        }
    }

    /// Comparisons against extreme integers and doubles.
    static func numbers(
        _ objects: [ReliabilityValue], _ context: ModelContext, _ store: StoreKind, _ tally: inout ReliabilityTally
    ) {
        for v in HostileValues.integers {
            compare("\(store): int == \(v)", #Predicate { $0.int == v }, objects, context, &tally)
            compare("\(store): int < \(v)", #Predicate { $0.int < v }, objects, context, &tally)
        }
        for v in HostileValues.doubles {
            compare("\(store): double == \(v)", #Predicate { $0.double == v }, objects, context, &tally)
            compare("\(store): double < \(v)", #Predicate { $0.double < v }, objects, context, &tally)
            compare("\(store): double >= \(v)", #Predicate { $0.double >= v }, objects, context, &tally)
        }
        let notANumber = Double(bitPattern: 0x7FF8_0000_0000_0000)  // spelled so the compiler does not flag `== .nan`
        compare(
            "\(store): double == NaN", #Predicate { $0.double == notANumber }, objects, context, &tally,
            errorAllowed: true)
    }

    /// `&&` and `||` chains of ``chainTerms`` terms, and an `&&` chain too deep for SQLite.
    static func deep(
        _ objects: [ReliabilityValue], _ context: ModelContext, _ store: StoreKind, _ tally: inout ReliabilityTally
    ) {
        compare("\(store): && of \(chainTerms) terms", chain(chainTerms, and: true), objects, context, &tally)
        compare("\(store): || of \(chainTerms) terms", chain(chainTerms, and: false), objects, context, &tally)
        // Too deep: the store may refuse it with a typed error, or answer right (every term is true, so: all rows).
        let label = "\(store): && of \(tooDeepTerms) terms"
        tally.add("predicates compared")
        do {
            let found = try context.fetch(FetchDescriptor(predicate: chain(tooDeepTerms, and: true))).map(\.serial)
                .sorted()
            if found != objects.map(\.serial) {
                tally.add("mismatches")
                tally.fail("\(label): fetched \(found.count) rows; every row matches (\(objects.count))")
            }
        } catch {
            let thrown = ThrownError(error)
            tally.add(thrown.typed ? "typed errors" : "untyped errors")
            if !thrown.typed { tally.fail("\(label): \(thrown)") }
        }
    }

    /// `serial > -1 && text != "never 1" && …` (every term true), or `serial == 0 || serial == 2 || …` (even serials).
    static func chain(_ terms: Int, and: Bool) -> Predicate<ReliabilityValue> {
        Predicate<ReliabilityValue> { v in
            let serial = PredicateExpressions.build_KeyPath(root: v, keyPath: \ReliabilityValue.serial)
            let text = PredicateExpressions.build_KeyPath(root: v, keyPath: \ReliabilityValue.text)
            if and {
                var e: any StandardPredicateExpression<Bool> = ExpressionBuilder.compare(
                    serial, PredicateExpressions.build_Arg(-1), .greaterThan)
                for i in 1..<terms {
                    e = ExpressionBuilder.and(
                        e, ExpressionBuilder.notEqual(text, PredicateExpressions.build_Arg("never \(i)")))
                }
                return e
            }
            var e: any StandardPredicateExpression<Bool> = ExpressionBuilder.equal(
                serial, PredicateExpressions.build_Arg(0))
            for i in 1..<terms {
                e = ExpressionBuilder.or(e, ExpressionBuilder.equal(serial, PredicateExpressions.build_Arg(2 * i)))
            }
            return e
        }
    }

    /// Saving NaN throws `SwiftDataError.invalidValue`, keeps the pending insert, writes nothing.
    static func nan(_ context: ModelContext, _ store: StoreKind, count: Int, _ tally: inout ReliabilityTally) {
        context.insert(ReliabilityValue(serial: 1_000_000, text: "NaN", double: .nan))
        do {
            try context.save()
            tally.fail("\(store): saving a NaN Double succeeded; it must throw SwiftDataError.invalidValue")
        } catch {
            let thrown = ThrownError(error)
            tally.add(thrown.typed ? "typed errors" : "untyped errors")
            if !thrown.is(SwiftDataError.invalidValue) {
                tally.fail("\(store): saving NaN threw \(thrown); expected SwiftDataError.invalidValue")
            }
            if context.insertedModelsArray.count != 1 {
                tally.fail(
                    "\(store): after the refused NaN save the context has \(context.insertedModelsArray.count) pending inserts; expected 1"
                )
            }
        }
        context.rollback()
        do {
            let after = try ModelContext(context.container).fetchCount(FetchDescriptor<ReliabilityValue>())
            if after != count {
                tally.fail("\(store): after the refused NaN save the store has \(after) rows; expected \(count)")
            }
        } catch {
            tally.fail("\(store): after the refused NaN save the store cannot be counted: \(error)")
        }
    }

    /// Fetches with `predicate` and compares the serials with `Predicate.evaluate` over `objects`.
    static func compare(
        _ label: String, _ predicate: Predicate<ReliabilityValue>, _ objects: [ReliabilityValue],
        _ context: ModelContext, _ tally: inout ReliabilityTally, errorAllowed: Bool = false
    ) {
        tally.add("predicates compared")
        let expected: [Int]
        do {
            expected = try objects.filter { try predicate.evaluate($0) }.map(\.serial)
        } catch {
            tally.fail("\(label): Predicate.evaluate threw \(error)")
            return
        }
        do {
            let found = try context.fetch(FetchDescriptor(predicate: predicate)).map(\.serial).sorted()
            if found != expected {
                tally.add("mismatches")
                let missing = Set(expected).subtracting(found).sorted()
                let extra = Set(found).subtracting(expected).sorted()
                tally.fail(
                    "\(label): the store returned \(found.count) rows, Predicate.evaluate \(expected.count); missing \(missing.prefix(8).map { debug(HostileValues.strings[$0]) }), extra \(extra.prefix(8).map { debug(HostileValues.strings[$0]) })"
                )
            }
        } catch {
            let thrown = ThrownError(error)
            tally.add(thrown.typed ? "typed errors" : "untyped errors")
            if !(errorAllowed && thrown.typed) { tally.fail("\(label): fetch threw \(thrown)") }
        }
    }

    /// A string as a short Swift literal with escapes (long ones abbreviated).
    static func debug(_ s: String) -> String {
        var out = ""
        for u in s.unicodeScalars.prefix(24) {
            out += u.isASCII && u.value >= 0x20 && u.value < 0x7F ? String(u) : "\\u{\(String(u.value, radix: 16))}"
        }
        let count = s.unicodeScalars.count
        return "\"" + out + (count > 24 ? "…(\(count) scalars)" : "") + "\""
    }

    static func hex(_ d: Double) -> String { "0x" + String(d.bitPattern, radix: 16) }
}
