import Foundation
import OpenSwiftData
import Testing

/// A value stored through a `ValueTransformer` subclass.
struct Swatch: Codable, Equatable {
    var red: Int
    var green: Int
    var blue: Int
}

/// Foundation-style transformer: `Swatch` ⇄ JSON `Data`.
final class SwatchTransformer: ValueTransformer {
    override class func transformedValueClass() -> AnyClass { NSData.self }
    override class func allowsReverseTransformation() -> Bool { true }
    override func transformedValue(_ value: Any?) -> Any? {
        guard let swatch = value as? Swatch else { return nil }
        return try? JSONEncoder().encode(swatch)
    }
    override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data else { return nil }
        return try? JSONDecoder().decode(Swatch.self, from: data)
    }
}

/// Upper-cases a string; registered by name only.
final class ShoutTransformer: ValueTransformer {
    override class func allowsReverseTransformation() -> Bool { false }
    override func transformedValue(_ value: Any?) -> Any? { (value as? String)?.uppercased() }
}

/// The legacy Swift-native transformer protocol, still supported.
enum TagListTransforming: ValueTransforming {
    static func encode(_ value: Any) throws -> Data { Data(((value as? [String]) ?? []).joined(separator: ",").utf8) }
    static func decode(_ data: Data) throws -> Any {
        String(decoding: data, as: UTF8.self).split(separator: ",").map(String.init)
    }
}

@Model final class Palette {
    var name: String
    @Attribute(.transformable(by: SwatchTransformer.self)) var primary: Swatch
    @Attribute(.transformable(by: SwatchTransformer.self)) var accent: Swatch?
    @Attribute(.transformable(by: TagListTransforming.self)) var tags: [String]

    init(name: String, primary: Swatch, accent: Swatch? = nil, tags: [String] = []) {
        self.name = name
        self.primary = primary
        self.accent = accent
        self.tags = tags
    }
}

@Suite("ValueTransformer")
struct ValueTransformerTests {
    @Test("a ValueTransformer subclass stores a transformable attribute", arguments: StoreKind.allCases)
    func transformerRoundTrip(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "transformer")
        let container = try kind.makeContainer(for: [Palette.self], in: dir)
        let writer = ModelContext(container)
        writer.insert(Palette(name: "sea", primary: Swatch(red: 0, green: 80, blue: 200), tags: ["cool", "blue"]))
        writer.insert(
            Palette(
                name: "sun", primary: Swatch(red: 250, green: 200, blue: 0), accent: Swatch(red: 1, green: 2, blue: 3)))
        try writer.save()

        let reader = ModelContext(container)
        let palettes = try reader.fetch(FetchDescriptor<Palette>(sortBy: [SortDescriptor(\.name)]))
        #expect(
            palettes.map(\.primary) == [Swatch(red: 0, green: 80, blue: 200), Swatch(red: 250, green: 200, blue: 0)])
        #expect(palettes.map(\.accent) == [nil, Swatch(red: 1, green: 2, blue: 3)])
        #expect(palettes.map(\.tags) == [["cool", "blue"], []])
        let attribute = try #require(
            Schema([Palette.self]).entitiesByName["Palette"]?.attributes.first { $0.name == "primary" })
        #expect(
            attribute.options.map(\.description) == [
                ".transformable(by: \(String(reflecting: SwatchTransformer.self)))"
            ])
    }

    @Test("name-based registration: set, look up, list, remove")
    func registration() throws {
        let name = NSValueTransformerName("ShoutTransformer-\(UUID().uuidString)")
        #expect(ValueTransformer(forName: name) == nil)
        ValueTransformer.setValueTransformer(ShoutTransformer(), forName: name)
        let found = try #require(ValueTransformer(forName: name))
        #expect(found.transformedValue("hey") as? String == "HEY")
        #expect(found.reverseTransformedValue("HEY") == nil)  // the registered one does not reverse
        #expect(ValueTransformer.valueTransformerNames().contains(name))
        ValueTransformer.setValueTransformer(nil, forName: name)
        #expect(ValueTransformer(forName: name) == nil)

        let base = ValueTransformer()
        #expect(base.transformedValue(3) as? Int == 3)
        #expect(ValueTransformer.allowsReverseTransformation())
        #expect(ObjectIdentifier(ValueTransformer.transformedValueClass()) == ObjectIdentifier(NSObject.self))
        #expect(ObjectIdentifier(SwatchTransformer.transformedValueClass()) == ObjectIdentifier(NSData.self))
    }
}
