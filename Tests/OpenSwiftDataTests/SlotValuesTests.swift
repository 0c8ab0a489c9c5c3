import Foundation
import Testing

@testable import OpenSwiftData

/// `SlotValues`, the copy-on-write slot array of every model, against `[Any?]` under the
/// operations `BackingData` uses, and for what it retains.
@Suite("SlotValues")
struct SlotValuesTests {
    final class Token {}

    /// The values as `Int?`s (each slot holds an `Int` or nothing), for comparison.
    private func ints(_ v: SlotValues) -> [Int?] { v.map { $0.map { $0 as! Int } } }

    @Test("appends, writes, growing writes, extensions and ranged replacements give what [Any?] gives")
    func agreesWithArray() {
        var values = SlotValues()
        var reference: [Any?] = []
        var state: UInt64 = 42
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % n
        }
        for step in 0..<3_000 {
            // A copy now and then, so writes also meet shared buffers, which must not change.
            let snapshot = next(10) == 0 ? (values, reference) : nil
            switch next(7) {
            case 5:
                // A write at or past the end, as a model's initialiser fills its slots.
                let slot = reference.count + next(3) - 1
                if slot >= reference.count {
                    reference.append(contentsOf: repeatElement(nil, count: slot + 1 - reference.count))
                }
                values.set(step, at: max(slot, 0))
                reference[max(slot, 0)] = step
            case 6:
                let newCount = reference.count + next(4) - 1
                values.extend(to: newCount)
                if newCount > reference.count {
                    reference.append(contentsOf: repeatElement(nil, count: newCount - reference.count))
                }
            case 0, 1:
                let v: Any? = next(4) == 0 ? nil : step
                values.append(v)
                reference.append(v)
            case 2 where !reference.isEmpty:
                let i = next(reference.count)
                values[i] = step
                reference[i] = step
            case 3 where !reference.isEmpty:
                let lower = next(reference.count)
                let upper = lower + next(reference.count - lower + 1)
                let inserted: [Any?] = (0..<next(4)).map { $0 }
                values.replaceSubrange(lower..<upper, with: inserted)
                reference.replaceSubrange(lower..<upper, with: inserted)
            default:
                values.append(contentsOf: repeatElement(nil, count: 2))
                reference.append(contentsOf: repeatElement(nil, count: 2))
            }
            #expect(values.count == reference.count)
            if let (copy, expected) = snapshot {
                #expect(ints(copy) == expected.map { $0.map { $0 as! Int } })
            }
        }
        #expect(ints(values) == reference.map { $0.map { $0 as! Int } })
    }

    @Test("a copy is independent of the original once either is written (copy on write)")
    func copyOnWrite() {
        var original = SlotValues(repeating: nil, count: 3)
        original[0] = 1
        let snapshot = original  // what `committed = values` does
        original[0] = 2
        original.append(3)
        #expect(ints(snapshot) == [1, nil, nil])
        #expect(ints(original) == [2, nil, nil, 3])
        var copy = snapshot
        copy[2] = 9
        #expect(ints(snapshot) == [1, nil, nil])
        #expect(ints(copy) == [1, nil, 9])
    }

    @Test("copying a shared buffer to write it keeps its capacity; only appends grow it")
    func capacityOfCopies() {
        var values = SlotValues(repeating: nil, count: 4)
        var snapshots: [SlotValues] = []
        for i in 0..<100 {
            snapshots.append(values)  // a snapshot per change, as `committed` is taken
            values[i % 4] = i
        }
        #expect(values.capacity == 4)
        #expect(ints(snapshots[99]) == [96, 97, 98, 95])
        #expect(ints(values) == [96, 97, 98, 99])
        values.append(nil)
        #expect(values.capacity == 8)
    }

    @Test("values are released when overwritten, when the last copy goes, and after a throwing fill")
    func ownership() throws {
        weak var overwritten: Token?
        weak var kept: Token?
        weak var partial: Token?
        var values: SlotValues? = SlotValues(repeating: nil, count: 2)
        do {
            let a = Token()
            let b = Token()
            overwritten = a
            kept = b
            values![0] = a
            values![1] = b
            values!.reserveCapacity(64)  // moves the values into a new buffer
        }
        #expect(overwritten != nil && kept != nil)
        values![0] = nil
        #expect(overwritten == nil)
        let copy = values
        values = nil
        #expect(kept != nil)
        _ = copy
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            _ = try SlotValues(unsafeUninitializedCount: 3) { slots, initialized in
                let t = Token()
                partial = t
                slots.initialize(to: t)
                initialized = 1
                throw Stop()
            }
        }
        #expect(partial == nil)
    }

    @Test(
        "a slot holding an optional's nil is loaded; an unloaded slot reads nil; in-place reads agree with subscripts")
    func loadedNilAndInPlaceReads() {
        var values = SlotValues(repeating: nil, count: 4)
        values[0] = Int?.none as Any  // a loaded `nil` of an optional attribute
        values[1] = 7
        values[2] = "text"
        #expect(values[0] != nil)
        #expect(values[3] == nil)
        #expect(values.isLoaded(0) && values.isLoaded(1) && !values.isLoaded(3) && !values.isLoaded(9))
        #expect(values.exactValue(at: 1, as: Int.self) == 7)
        #expect(values.exactValue(at: 2, as: String.self) == "text")
        // Exact types only: an `Int?` box is not an `Int`, an `Int` is not an `Int64`.
        #expect(values.exactValue(at: 0, as: Int.self) == nil)
        #expect(values.exactValue(at: 0, as: Int?.self) == .some(nil))
        #expect(values.exactValue(at: 1, as: Int64.self) == nil)
        #expect(values.exactValue(at: 3, as: Int.self) == nil)
        #expect(values.withLoadedValue(at: 2) { $0 as? String } == "text")
        #expect(values.withLoadedValue(at: 3) { _ in true } == nil)
        values.set("moved", at: 6)  // past the end: slots 4 and 5 are unloaded
        #expect(values.count == 7)
        #expect(values[4] == nil && values[5] == nil)
        #expect(values[6] as? String == "moved")
    }

    @Test(
        "a relationship slot holds no model when unloaded, a key (0 or not) or nil; a model, an optional model or any array (empty too) may hold one"
    )
    func holdsNoModel() {
        let token = Token()
        let values: [Any?] = [
            nil, ForeignKey(pk: 5), ForeignKey(pk: 0), Token?.none as Any, Optional(token) as Any, [Token]() as Any,
            [token] as Any, token,
        ]
        var slots = SlotValues()
        for v in values { slots.append(v) }
        #expect(slots.count == values.count)
        #expect(
            (0..<values.count).map { slots.holdsNoModel($0) } == [true, true, true, true, false, false, false, false])
        #expect(slots.holdsNoModel(values.count))  // out of range
    }

    /// The storage's deinit skips slots whose destroy does nothing, told by the value witness
    /// flags it reads by hand: checked here on this platform for plain and reference-holding
    /// values, inline and boxed, so a runtime that laid its flags out differently fails this
    /// test rather than leaking or freeing wrongly.
    @Test(
        "only inline plain values (and unloaded slots) are left undestroyed; every reference a slot holds is released")
    func triviallyDestroyedSlots() {
        struct Pair { var a = 1, b = 2.5 }
        struct Wide { var a = 1, b = 2, c = 3, d = 4 }
        struct WideRef { var a = 1, b = 2, c = 3, d = Token() }
        let token = Token()
        let plain: [Any] = [
            7, -0.5, true, Int64(9), ForeignKey(pk: 3), Optional(5) as Any, Pair(), SlotValues.unloaded,
        ]
        let owning: [Any] = [
            "short", String(repeating: "long text ", count: 8), token, Optional(token) as Any, [1, 2], Wide(),
            WideRef(),
            Data([1, 2, 3]),
        ]
        for value in plain {
            withUnsafePointer(to: value) { #expect(SlotValues.isTriviallyDestroyed(at: $0), "\(type(of: value))") }
        }
        for value in owning {
            withUnsafePointer(to: value) { #expect(!SlotValues.isTriviallyDestroyed(at: $0), "\(type(of: value))") }
        }
        weak var held: Token?
        weak var boxed: Token?
        do {
            var values = SlotValues(repeating: nil, count: 5)
            let a = Token()
            let b = WideRef()
            held = a
            boxed = b.d
            values[0] = 1
            values[1] = a
            values[2] = 2.5
            values[3] = b
            #expect(held != nil && boxed != nil)
        }
        #expect(held == nil && boxed == nil)
    }

    @Test("exactCast matches the dynamic type exactly; a subclass or an optional wrapping is left to as?")
    func exactCasts() {
        class Base {}
        final class Sub: Base {}
        let sub = Sub()
        #expect(exactCast(sub as Any, to: Sub.self) === sub)
        #expect(exactCast(sub as Any, to: Base.self) == nil)
        #expect(exactCast(Optional(3) as Any, to: Int.self) == nil)
        #expect(exactCast(3.5 as Any, to: Double.self) == 3.5)
        #expect(exactCast("é" as Any, to: String.self) == "é")
    }

    /// The in-place reads rely on the `Any` container's ABI (the type metadata pointer after
    /// three words of value buffer; small bitwise-takable values inline): checked here on this
    /// platform, for inline and boxed values, so a toolchain that changed it fails this test
    /// rather than answering wrongly.
    @Test("in-place slot reads agree with exactCast for inline and boxed values of many types")
    func inPlaceReads() {
        final class Ref {}
        struct Wide: Equatable {
            var a = 1, b = 2, c = 3, d = 4
        }
        let ref = Ref()
        let long = String(repeating: "long text ", count: 8)
        let values: [Any] = [
            7, -0.0, "short", long, ref, Wide(), Optional(5) as Any, Int64(9), true, [1, 2, 3],
            Date(timeIntervalSince1970: 1), UUID(), Data([1, 2]),
        ]
        var slots = SlotValues()
        for (i, v) in values.enumerated() { slots.set(v, at: i) }
        slots.extend(to: values.count + 1)  // one unloaded slot at the end
        slots.withSlots { p, count in
            #expect(count == values.count + 1)
            for (i, v) in values.enumerated() {
                #expect(AnyCell.typeMetadata(at: p + i) == AnyCell.metadata(of: type(of: v)), "slot \(i)")
                #expect(!SlotValues.isUnloaded(at: p + i))
            }
            #expect(SlotValues.isUnloaded(at: p + values.count))
            #expect(SlotValues.exactValue(at: p + 0, as: Int.self) == 7)
            #expect(SlotValues.exactValue(at: p + 0, as: Int64.self) == nil)
            let zero = SlotValues.exactValue(at: p + 1, as: Double.self)
            #expect(zero == 0 && zero?.sign == .minus)
            #expect(SlotValues.exactValue(at: p + 2, as: String.self) == "short")
            #expect(SlotValues.exactValue(at: p + 3, as: String.self) == long)
            #expect(SlotValues.exactValue(at: p + 4, as: Ref.self) === ref)
            #expect(SlotValues.exactValue(at: p + 5, as: Wide.self) == Wide())  // boxed: four words
            #expect(SlotValues.exactValue(at: p + 6, as: Int.self) == nil)  // an `Int?` is not an `Int`
            #expect(SlotValues.exactValue(at: p + 6, as: Int?.self) == .some(5))
            #expect(SlotValues.exactValue(at: p + 7, as: Int64.self) == 9)
            #expect(SlotValues.exactValue(at: p + 8, as: Bool.self) == true)
            #expect(SlotValues.exactValue(at: p + 9, as: [Int].self) == [1, 2, 3])
            #expect(SlotValues.exactValue(at: p + 10, as: Date.self) == Date(timeIntervalSince1970: 1))
            #expect(SlotValues.exactValue(at: p + 12, as: Data.self) == Data([1, 2]))
            #expect(SlotValues.exactValue(at: p + values.count, as: Int.self) == nil)
        }
        // The values survive the reads: a load copies, it does not take.
        #expect(slots.exactValue(at: 3, as: String.self) == long)
        #expect(slots.exactValue(at: 4, as: Ref.self) === ref)
    }

    @Test("withExactValue hands over the value where it is stored, inline or boxed, only for its exact type")
    func inPlaceBorrows() throws {
        struct Wide: Equatable {
            var a = 1, b = 2, c = 3, d = 4
            var text = String(repeating: "boxed ", count: 6)
        }
        struct Refused: Error {}
        var slots = SlotValues()
        slots.set(7, at: 0)
        slots.set(Wide(), at: 1)
        slots.set(Optional(Wide()) as Any, at: 2)
        slots.set("short", at: 3)
        var seen: [String] = []
        let handed: [Bool] = try slots.withSlots { p, _ in
            [
                try SlotValues.withExactValue(at: p + 0, as: Int.self) { seen.append("int \($0.pointee)") },
                try SlotValues.withExactValue(at: p + 1, as: Wide.self) { seen.append("wide \($0.pointee.d)") },
                try SlotValues.withExactValue(at: p + 3, as: String.self) { seen.append($0.pointee) },
                // Another type, or an optional wrapping, is not handed over: `body` is not called.
                try SlotValues.withExactValue(at: p + 0, as: Int64.self) { _ in seen.append("wrong") },
                try SlotValues.withExactValue(at: p + 2, as: Wide.self) { _ in seen.append("wrong") },
            ]
        }
        #expect(handed == [true, true, true, false, false])
        #expect(seen == ["int 7", "wide 4", "short"])
        let thrown: Bool = slots.withSlots { p, _ in
            do {
                _ = try SlotValues.withExactValue(at: p + 1, as: Wide.self) { _ in throw Refused() }
                return false
            } catch {
                return error is Refused
            }
        }
        #expect(thrown)
        // Nothing was taken from the slots.
        #expect(slots.exactValue(at: 1, as: Wide.self) == Wide())
        #expect(slots.exactValue(at: 3, as: String.self) == "short")
    }
}
