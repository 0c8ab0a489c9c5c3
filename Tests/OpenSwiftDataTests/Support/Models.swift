import Foundation
import OpenSwiftData

// Real models compiled through the @Model macro; the tests assert on their schema and behaviour.

/// A user with a unique identifier (UNQ scenarios use it later).
@Model final class User {
    @Attribute(.unique) var id: UUID
    var name: String
    var joined: Date
    init(id: UUID, name: String, joined: Date) {
        self.id = id
        self.name = name
        self.joined = joined
    }
}

/// The dictionary tutorial: a category cascades to its words.
@Model final class Category {
    @Attribute(.unique) var name: String
    @Relationship(deleteRule: .cascade, inverse: \Word.category) var words: [Word] = []
    init(name: String) { self.name = name }
}

@Model final class Word {
    var text: String
    var length: Int
    var category: Category?
    init(text: String) {
        self.text = text
        self.length = text.count
    }
}

/// Many-to-many: products and tags, with an index.
@Model final class Product {
    #Index<Product>([\.name], [\.price, \.name])
    var name: String
    var price: Double
    @Relationship(inverse: \Tag.products) var tags: [Tag] = []
    init(name: String, price: Double) {
        self.name = name
        self.price = price
    }
}

@Model final class Tag {
    var label: String
    var products: [Product] = []
    init(label: String) { self.label = label }
}

/// A three-level hierarchy: Trip → BusinessTrip → ExecutiveTrip, and PersonalTrip.
@Model class Trip {
    var name: String
    var days: Int
    var traveler: Traveler?
    init(name: String, days: Int) {
        self.name = name
        self.days = days
    }
}

@Model class BusinessTrip: Trip {
    var perdiem: Double
    init(name: String, days: Int, perdiem: Double) {
        self.perdiem = perdiem
        super.init(name: name, days: days)
    }
}

@Model final class ExecutiveTrip: BusinessTrip {
    var lounge: String
    init(name: String, days: Int, perdiem: Double, lounge: String) {
        self.lounge = lounge
        super.init(name: name, days: days, perdiem: perdiem)
    }
}

@Model final class PersonalTrip: Trip {
    var reason: String
    init(name: String, days: Int, reason: String) {
        self.reason = reason
        super.init(name: name, days: days)
    }
}

@Model final class Traveler {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Trip.traveler) var trips: [Trip] = []
    init(name: String) { self.name = name }
}

/// A final class with `let` properties.
@Model final class Measurement {
    let id: UUID
    let takenAt: Date
    var value: Double
    init(id: UUID, takenAt: Date, value: Double) {
        self.id = id
        self.takenAt = takenAt
        self.value = value
    }
}

enum Priority: Int, Codable, CaseIterable {
    case low = 0
    case medium = 5
    case high = 10
}

enum Mood: String, Codable {
    case calm, busy
}

struct Address: Codable, Equatable {
    var street: String
    var city: String
}

/// One attribute of every supported type, and an optional of each.
@Model final class Everything {
    var int: Int = 0
    var int8: Int8 = 0
    var int16: Int16 = 0
    var int32: Int32 = 0
    var int64: Int64 = 0
    var uint: UInt = 0
    var uint8: UInt8 = 0
    var uint16: UInt16 = 0
    var uint32: UInt32 = 0
    var uint64: UInt64 = 0
    var double: Double = 0
    var float: Float = 0
    var bool: Bool = false
    var string: String = ""
    var date: Date = Date(timeIntervalSinceReferenceDate: 0)
    var uuid: UUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    var url: URL = URL(string: "https://example.com")!
    var data: Data = Data()
    var decimal: Decimal = 0
    var priority: Priority = .low
    var mood: Mood = .calm
    var address: Address = Address(street: "", city: "")
    var list: [String] = []

    var oInt: Int?
    var oInt8: Int8?
    var oInt16: Int16?
    var oInt32: Int32?
    var oInt64: Int64?
    var oUInt: UInt?
    var oUInt8: UInt8?
    var oUInt16: UInt16?
    var oUInt32: UInt32?
    var oUInt64: UInt64?
    var oDouble: Double?
    var oFloat: Float?
    var oBool: Bool?
    var oString: String?
    var oDate: Date?
    var oUUID: UUID?
    var oURL: URL?
    var oData: Data?
    var oDecimal: Decimal?
    var oPriority: Priority?
    var oMood: Mood?
    var oAddress: Address?
    var oList: [Int]?

    @Transient var cache: Int = 5
    var computed: Int { int * 2 }

    init() {}
}
