import Foundation
import Testing

@testable import OpenSwiftData

/// Every fetched row allocates one `BackingData`, its fields and slots in one allocation
/// (Unsafe/BackingStorage.swift). Its size decides the allocator's size class, and with it
/// the memory a fetch of N rows writes: the fields stay small while the one-byte ones sit
/// together and the store's identifier is held by reference.
@Suite("BackingData size")
struct BackingDataSizeTests {
    /// Two eight-byte fields: 16 bytes of object header and 16 of fields.
    final class TwoWords {
        var a: Int64 = 0
        var b: Int64 = 0
    }

    /// The instance size in a Swift class's metadata: after the isa and superclass words (and,
    /// with Objective-C interoperation, the two cache words and the data word), the class flags
    /// and the instance address point (32 bits each), then the instance size (32 bits).
    private func instanceSize(_ type: AnyClass) -> Int {
        #if canImport(ObjectiveC)
            let offset = 48
        #else
            let offset = 24
        #endif
        let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
        return Int(metadata.load(fromByteOffset: offset, as: UInt32.self))
    }

    @Test("a model's storage class has no stored properties: its fields are in the buffer's tail")
    func backingDataHasNoStoredProperties() {
        // The metadata read is checked on a class whose size is known first.
        #expect(instanceSize(TwoWords.self) == 32)
        // `ManagedBufferPointer(bufferClass:)` requires a class without stored properties.
        #expect(instanceSize(BackingData.self) == 16)
    }

    @Test("a model's fields stay within 168 bytes: a seven-slot model's storage is one 408-byte block")
    func fieldsFitTheirBudget() {
        // 16 bytes of object header, the fields, then 32 bytes a slot: jemalloc's 448-byte size
        // class holds a model of up to seven slots.
        let size = MemoryLayout<BackingData.Fields>.stride
        #expect(size > 100, "the fields take \(size) bytes: fewer than the ones declared")
        #expect(size <= 168, "the fields take \(size) bytes, past their budget of 168")
        // The slots start at the fields' stride: it must be a place an `Any` may start.
        #expect(MemoryLayout<BackingData.Fields>.alignment == MemoryLayout<Any>.alignment)
        #expect(BackingData._slotsOffset % MemoryLayout<Any>.alignment == 0)
    }

    @Test(
        "PID-01: fetched and saved models name their store; a stand-in keeps the identifier it was given",
        arguments: StoreKind.allCases)
    func storeIdentifierByReference(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let container = try kind.makeContainer(for: contextSuiteModels, in: dir)
        let context = ModelContext(container)
        let author = CtxItem(name: "Ada", n: 1)
        context.insert(author)
        #expect(author.persistentModelID.storeIdentifier == nil)
        try context.save()
        let saved = try #require(author.persistentModelID.storeIdentifier)
        #expect(!saved.isEmpty)
        let other = ModelContext(container)
        let fetched = try #require(try other.fetch(FetchDescriptor<CtxItem>()).first)
        #expect(fetched.persistentModelID == author.persistentModelID)
        #expect(fetched.persistentModelID.storeIdentifier == saved)
        // A row that is gone: the stand-in keeps the identifier it was asked for.
        let id = author.persistentModelID
        context.delete(author)
        try context.save()
        let standIn = ModelContext(container).model(for: id)
        #expect(standIn.persistentModelID.storeIdentifier == saved)
    }
}
