import Foundation
import OpenSwiftData

// The models the conformance suites use. They are public so a team can open a store the
// suites wrote, and so their schema shows what each suite exercises.

/// An account with a unique handle (UNQ- cases): `@Attribute(.unique)` upserts at save.
@Model public final class ConformanceAccount {
    /// The unique key.
    @Attribute(.unique) public var handle: String
    /// A value an upsert overwrites.
    public var balance: Int
    /// An optional value (nil never collides).
    public var email: String?
    /// An account with a handle and a balance.
    public init(handle: String, balance: Int, email: String? = nil) {
        self.handle = handle
        self.balance = balance
        self.email = email
    }
}

/// The tutorial user, unique on a UUID (UNQ-10): the key is stored as 16 bytes and an upsert
/// overwrites the other attributes, a `Date` included.
@Model public final class ConformanceUser {
    /// The unique key.
    @Attribute(.unique) public var id: UUID
    /// The user's name.
    public var name: String
    /// When the user joined.
    public var joined: Date
    /// A user with an identifier, a name and a joining date.
    public init(id: UUID, name: String, joined: Date) {
        self.id = id
        self.name = name
        self.joined = joined
    }
}

/// A row unique on the pair (`first`, `second`) through `#Unique` (compound uniqueness).
@Model public final class ConformancePair {
    #Unique<ConformancePair>([\.first, \.second])
    /// The first half of the key.
    public var first: String
    /// The second half of the key.
    public var second: Int
    /// A value an upsert overwrites.
    public var value: Double
    /// A pair row.
    public init(first: String, second: Int, value: Double) {
        self.first = first
        self.second = second
        self.value = value
    }
}

/// An owner with one to-many relationship per delete rule (DEL- and REL- cases).
@Model public final class ConformanceOwner {
    /// The owner's name.
    public var name: String
    /// Children deleted with the owner.
    @Relationship(deleteRule: .cascade, inverse: \ConformanceCascaded.owner) public var cascaded:
        [ConformanceCascaded] = []
    /// Children whose `owner` becomes nil (the default rule, stated explicitly).
    @Relationship(deleteRule: .nullify, inverse: \ConformanceNullified.owner) public var nullified:
        [ConformanceNullified] = []
    /// Children that forbid deleting a non-empty owner.
    @Relationship(deleteRule: .deny, inverse: \ConformanceDenied.owner) public var denied: [ConformanceDenied] = []
    /// An owner with a name.
    public init(name: String) { self.name = name }
}

/// A child deleted with its owner (`.cascade`).
@Model public final class ConformanceCascaded {
    /// The child's label.
    public var label: String
    /// The owning side.
    public var owner: ConformanceOwner?
    /// A child with a label.
    public init(label: String) { self.label = label }
}

/// A child left behind with a nil owner (`.nullify`).
@Model public final class ConformanceNullified {
    /// The child's label.
    public var label: String
    /// The owning side.
    public var owner: ConformanceOwner?
    /// A child with a label.
    public init(label: String) { self.label = label }
}

/// A child whose presence forbids deleting its owner (`.deny`).
@Model public final class ConformanceDenied {
    /// The child's label.
    public var label: String
    /// The owning side.
    public var owner: ConformanceOwner?
    /// A child with a label.
    public init(label: String) { self.label = label }
}

/// The base of a three-level hierarchy (INH- cases).
@Model public class ConformanceVehicle {
    /// The vehicle's name.
    public var name: String
    /// Wheels, for predicates on an inherited attribute.
    public var wheels: Int
    /// A vehicle.
    public init(name: String, wheels: Int) {
        self.name = name
        self.wheels = wheels
    }
}

/// A subclass with its own attribute.
@Model public class ConformanceCar: ConformanceVehicle {
    /// Seats, stored only for cars.
    public var seats: Int
    /// A car.
    public init(name: String, seats: Int) {
        self.seats = seats
        super.init(name: name, wheels: 4)
    }
}

/// A subclass of a subclass.
@Model public final class ConformanceElectricCar: ConformanceCar {
    /// Battery capacity in kWh.
    public var batteryKWh: Double
    /// An electric car.
    public init(name: String, seats: Int, batteryKWh: Double) {
        self.batteryKWh = batteryKWh
        super.init(name: name, seats: seats)
    }
}

/// A second subclass of the base.
@Model public final class ConformanceTruck: ConformanceVehicle {
    /// Payload in tonnes.
    public var payload: Double
    /// A truck.
    public init(name: String, wheels: Int, payload: Double) {
        self.payload = payload
        super.init(name: name, wheels: wheels)
    }
}

/// A row with one attribute of each common type (PRD- and FET- cases).
@Model public final class ConformanceRecord {
    /// A string compared case-sensitively.
    public var name: String
    /// An integer.
    public var number: Int
    /// A floating-point amount.
    public var amount: Double
    /// An optional string (nil handling).
    public var note: String?
    /// An optional integer.
    public var rank: Int?
    /// A boolean flag.
    public var flag: Bool
    /// A date.
    public var date: Date
    /// A record.
    public init(
        name: String, number: Int, amount: Double = 0, note: String? = nil, rank: Int? = nil,
        flag: Bool = false, date: Date = Date(timeIntervalSince1970: 0)
    ) {
        self.name = name
        self.number = number
        self.amount = amount
        self.note = note
        self.rank = rank
        self.flag = flag
        self.date = date
    }
}

// MARK: Uniqueness

/// A contact with two independent uniqueness groups: `code`, and (`givenName`, `familyName`) (UNQ-01, 15, 17, 18).
@Model public final class ConformanceContact {
    #Unique<ConformanceContact>([\.code], [\.givenName, \.familyName])
    /// The first key.
    public var code: Int
    /// Half of the second key.
    public var givenName: String
    /// The other half of the second key.
    public var familyName: String
    /// A value an upsert overwrites.
    public var phone: String
    /// A contact.
    public init(code: Int, givenName: String, familyName: String, phone: String = "") {
        self.code = code
        self.givenName = givenName
        self.familyName = familyName
        self.phone = phone
    }
}

/// A badge whose unique code is optional: nil codes never collide (UNQ-19).
@Model public final class ConformanceBadge {
    /// The optional unique key.
    @Attribute(.unique) public var code: String?
    /// Who holds the badge.
    public var holder: String
    /// A badge.
    public init(code: String?, holder: String) {
        self.code = code
        self.holder = holder
    }
}

/// A folder with a unique key and a to-many relationship an upsert replaces (UNQ-14).
@Model public final class ConformanceFolder {
    /// The unique key.
    @Attribute(.unique) public var key: String
    /// The folder's files (default delete rule, nullify).
    @Relationship(inverse: \ConformanceFile.folder) public var files: [ConformanceFile] = []
    /// A folder.
    public init(key: String) { self.key = key }
}

/// A file in a ``ConformanceFolder``.
@Model public final class ConformanceFile {
    /// The file's name.
    public var name: String
    /// The containing folder.
    public var folder: ConformanceFolder?
    /// A file.
    public init(name: String) { self.name = name }
}

/// A passport unique on its to-one `holder` through `#Unique` (UNQ-21).
@Model public final class ConformancePassport {
    #Unique<ConformancePassport>([\.holder])
    /// The passport number (not unique).
    public var number: String
    /// The holder; one passport per holder, nil never collides.
    public var holder: ConformanceCitizen?
    /// A passport.
    public init(number: String, holder: ConformanceCitizen?) {
        self.number = number
        self.holder = holder
    }
}

/// The holder of a ``ConformancePassport``.
@Model public final class ConformanceCitizen {
    /// The citizen's name.
    public var name: String
    /// A citizen.
    public init(name: String) { self.name = name }
}

/// The base of a hierarchy whose unique `name` is declared on the base (UNQ-40, UNQ-41).
@Model public class ConformanceTour {
    /// Unique across the whole hierarchy.
    @Attribute(.unique) public var name: String
    /// A value an upsert overwrites.
    public var price: Int
    /// A tour.
    public init(name: String, price: Int) {
        self.name = name
        self.price = price
    }
}

/// A subclass of ``ConformanceTour``.
@Model public final class ConformanceCityTour: ConformanceTour {
    /// The city visited.
    public var city: String
    /// A city tour.
    public init(name: String, price: Int, city: String) {
        self.city = city
        super.init(name: name, price: price)
    }
}

/// Another subclass of ``ConformanceTour``.
@Model public final class ConformanceBoatTour: ConformanceTour {
    /// The boat's name.
    public var boat: String
    /// A boat tour.
    public init(name: String, price: Int, boat: String) {
        self.boat = boat
        super.init(name: name, price: price)
    }
}

// MARK: Delete rules and relationships

/// A parent whose to-many uses the default delete rule (nullify) (DEL-01, REL-01…03).
@Model public final class ConformanceParent {
    /// The parent's name.
    public var name: String
    /// Children, with the default delete rule.
    @Relationship(inverse: \ConformanceChild.parent) public var children: [ConformanceChild] = []
    /// A parent.
    public init(name: String) { self.name = name }
}

/// A child of a ``ConformanceParent``.
@Model public final class ConformanceChild {
    /// The child's name.
    public var name: String
    /// The parent, nil once removed or nullified.
    public var parent: ConformanceParent?
    /// A child.
    public init(name: String) { self.name = name }
}

/// A voyage owning its lodging through a cascading to-one (DEL-03, one-to-one inverses).
@Model public final class ConformanceVoyage {
    /// The voyage's name.
    public var name: String
    /// Deleted with the voyage.
    @Relationship(deleteRule: .cascade, inverse: \ConformanceLodging.voyage) public var lodging: ConformanceLodging?
    /// A voyage.
    public init(name: String) { self.name = name }
}

/// The to-one target of ``ConformanceVoyage/lodging``.
@Model public final class ConformanceLodging {
    /// Where.
    public var place: String
    /// The inverse to-one.
    public var voyage: ConformanceVoyage?
    /// A lodging.
    public init(place: String) { self.place = place }
}

/// The top of a three-level cascade: house → floors → rooms (DEL-04, DEL-05).
@Model public final class ConformanceHouse {
    /// The house's name.
    public var name: String
    /// Floors, deleted with the house.
    @Relationship(deleteRule: .cascade, inverse: \ConformanceFloor.house) public var floors: [ConformanceFloor] = []
    /// A house.
    public init(name: String) { self.name = name }
}

/// The middle level: cascades to rooms, nullifies furniture.
@Model public final class ConformanceFloor {
    /// The floor's name.
    public var name: String
    /// The owning house.
    public var house: ConformanceHouse?
    /// Rooms, deleted with the floor.
    @Relationship(deleteRule: .cascade, inverse: \ConformanceRoom.floor) public var rooms: [ConformanceRoom] = []
    /// Furniture, left behind with a nil floor.
    @Relationship(deleteRule: .nullify, inverse: \ConformanceFurniture.floor) public var furniture:
        [ConformanceFurniture] = []
    /// A floor.
    public init(name: String) { self.name = name }
}

/// The bottom level of the cascade.
@Model public final class ConformanceRoom {
    /// The room's name.
    public var name: String
    /// The owning floor.
    public var floor: ConformanceFloor?
    /// A room.
    public init(name: String) { self.name = name }
}

/// Furniture that survives its floor (a cascade stops at nullify).
@Model public final class ConformanceFurniture {
    /// The piece's name.
    public var name: String
    /// The floor, nil after the floor is deleted.
    public var floor: ConformanceFloor?
    /// A piece of furniture.
    public init(name: String) { self.name = name }
}

/// One side of a many-to-many relationship (DEL-06, REL many-to-many).
@Model public final class ConformanceItem {
    /// The item's name.
    public var name: String
    /// Tags, nullified on either side's deletion.
    @Relationship(inverse: \ConformanceTag.items) public var tags: [ConformanceTag] = []
    /// An item.
    public init(name: String) { self.name = name }
}

/// The other side of the many-to-many with ``ConformanceItem``.
@Model public final class ConformanceTag {
    /// The tag's label.
    public var label: String
    /// The tagged items.
    public var items: [ConformanceItem] = []
    /// A tag.
    public init(label: String) { self.label = label }
}

/// An owner of a gadget through a `.noAction` to-one (DEL-07).
@Model public final class ConformanceGadgetOwner {
    /// The owner's name.
    public var name: String
    /// Left alone when the owner is deleted.
    @Relationship(deleteRule: .noAction, inverse: \ConformanceGadget.owner) public var gadget: ConformanceGadget?
    /// A gadget owner.
    public init(name: String) { self.name = name }
}

/// The target of a `.noAction` rule.
@Model public final class ConformanceGadget {
    /// The gadget's name.
    public var name: String
    /// The inverse of ``ConformanceGadgetOwner/gadget``.
    public var owner: ConformanceGadgetOwner?
    /// A gadget.
    public init(name: String) { self.name = name }
}

/// A memo with one-way relationships: the marker declares nothing back (DEL-14).
@Model public final class ConformanceMemo {
    /// The memo's text.
    public var text: String
    /// A one-way to-one.
    public var label: ConformanceMarker?
    /// A one-way to-many.
    public var markers: [ConformanceMarker] = []
    /// A memo.
    public init(text: String) { self.text = text }
}

/// The target of ``ConformanceMemo``'s one-way relationships.
@Model public final class ConformanceMarker {
    /// The marker's name.
    public var name: String
    /// A marker.
    public init(name: String) { self.name = name }
}

/// A machine whose parts hold a non-optional to-one back to it (DEL-13: nullifying is impossible).
@Model public final class ConformanceMachine {
    /// The machine's name.
    public var name: String
    /// The parts (default rule, nullify).
    @Relationship(inverse: \ConformancePart.machine) public var parts: [ConformancePart] = []
    /// A machine.
    public init(name: String) { self.name = name }
}

/// A part that must always belong to a machine.
@Model public final class ConformancePart {
    /// The part's name.
    public var name: String
    /// The non-optional owner.
    public var machine: ConformanceMachine
    /// A part of `machine`.
    public init(name: String, machine: ConformanceMachine) {
        self.name = name
        self.machine = machine
    }
}

/// A team that must have one to three members (REL-04).
@Model public final class ConformanceTeam {
    /// The team's name.
    public var name: String
    /// Between one and three members, validated at save.
    @Relationship(minimumModelCount: 1, maximumModelCount: 3, inverse: \ConformanceTeamMember.team)
    public var members: [ConformanceTeamMember] = []
    /// A team.
    public init(name: String) { self.name = name }
}

/// A member of a ``ConformanceTeam``.
@Model public final class ConformanceTeamMember {
    /// The member's name.
    public var name: String
    /// The team.
    public var team: ConformanceTeam?
    /// A member.
    public init(name: String) { self.name = name }
}

/// A garage whose vehicles are typed as the hierarchy's base (INH-07).
@Model public final class ConformanceGarage {
    /// The garage's name.
    public var name: String
    /// Vehicles of any subclass, deleted with the garage (one-way: vehicles declare nothing back).
    @Relationship(deleteRule: .cascade) public var vehicles: [ConformanceVehicle] = []
    /// A garage.
    public init(name: String) { self.name = name }
}

// MARK: Predicates

/// A raw-value enum stored as its raw value (PRD-19).
public enum ConformanceStatus: String, Codable, CaseIterable, Sendable {
    /// Not yet published.
    case draft
    /// Published.
    case published
    /// Withdrawn.
    case retired
}

/// An author with an optional birth year and a to-many of books (PRD-09, PRD-10).
@Model public final class ConformanceAuthor {
    /// The author's name.
    public var name: String
    /// The birth year, nil for some authors.
    public var born: Int?
    /// The author's books.
    @Relationship(inverse: \ConformanceBook.author) public var books: [ConformanceBook] = []
    /// An author.
    public init(name: String, born: Int? = nil) {
        self.name = name
        self.born = born
    }
}

/// A label attached to books through a many-to-many (PRD-10…12).
@Model public final class ConformanceLabel {
    /// The label's name.
    public var name: String
    /// Whether the label is public (for `allSatisfy`).
    public var isPublic: Bool
    /// The labelled books.
    public var books: [ConformanceBook] = []
    /// A label.
    public init(name: String, isPublic: Bool) {
        self.name = name
        self.isPublic = isPublic
    }
}

/// A chapter of a ``ConformanceBook``: the to-many side whose inverse is a foreign key (PRD-10…12).
@Model public final class ConformanceChapter {
    /// The chapter's title.
    public var title: String
    /// Page count.
    public var pages: Int
    /// The containing book.
    public var book: ConformanceBook?
    /// A chapter.
    public init(title: String, pages: Int) {
        self.title = title
        self.pages = pages
    }
}

/// A book: optionals, a UUID, an enum, a to-one and to-manys (a join table and an inverse foreign key),
/// a transient and a computed property (PRD-*).
@Model public final class ConformanceBook {
    /// A UUID key (captured-array `contains`).
    public var code: UUID
    /// The title.
    public var title: String
    /// An optional subtitle.
    public var subtitle: String?
    /// Page count.
    public var pages: Int
    /// Price.
    public var price: Double
    /// An optional rating (a nullable `Double`).
    public var rating: Double?
    /// Optional stock.
    public var stock: Int?
    /// Optional publication date.
    public var published: Date?
    /// A flag.
    public var isFeatured: Bool
    /// A raw-value enum.
    public var status: ConformanceStatus
    /// The optional author.
    public var author: ConformanceAuthor?
    /// Labels (many-to-many).
    @Relationship(inverse: \ConformanceLabel.books) public var labels: [ConformanceLabel] = []
    /// Chapters (one-to-many, the inverse holds the foreign key).
    @Relationship(inverse: \ConformanceChapter.book) public var chapters: [ConformanceChapter] = []
    /// Not stored: predicates on it are unsupported.
    @Transient public var scratch: Int = 0
    /// Computed, not stored: predicates on it are unsupported.
    public var shoutedTitle: String { title.uppercased() }
    /// A book.
    public init(
        code: UUID, title: String, subtitle: String? = nil, pages: Int, price: Double, rating: Double? = nil,
        stock: Int? = nil, published: Date? = nil, isFeatured: Bool = false, status: ConformanceStatus = .draft
    ) {
        self.code = code
        self.title = title
        self.subtitle = subtitle
        self.pages = pages
        self.price = price
        self.rating = rating
        self.stock = stock
        self.published = published
        self.isFeatured = isFeatured
        self.status = status
    }
}

/// An album whose photos are an optional to-many relationship, as CloudKit sync requires
/// (REL-02, DEL-02 and DEL-06 for `[T]?`).
@Model public final class ConformanceAlbum {
    /// The album's name.
    public var name: String = ""
    /// Its photos, deleted with it; reads `[]`, never `nil`, as in SwiftData.
    @Relationship(deleteRule: .cascade, inverse: \ConformancePhoto.album) public var photos: [ConformancePhoto]? = []
    /// An album.
    public init(name: String) { self.name = name }
}

/// A photo of a ``ConformanceAlbum``, with optional many-to-many keywords (inferred inverse).
@Model public final class ConformancePhoto {
    /// The photo's caption.
    public var caption: String = ""
    /// The album, nil once removed.
    public var album: ConformanceAlbum?
    /// Keywords shared by many photos; the inverse is inferred.
    public var keywords: [ConformanceKeyword]? = nil
    /// A photo.
    public init(caption: String) { self.caption = caption }
}

/// A keyword shared by many ``ConformancePhoto``s (both sides optional to-many).
@Model public final class ConformanceKeyword {
    /// The keyword.
    public var word: String = ""
    /// The photos carrying it.
    public var photos: [ConformancePhoto]? = nil
    /// A keyword.
    public init(word: String) { self.word = word }
}

// MARK: History

/// A journal entry whose saves are read back as persistent history (HIS- cases): a unique key
/// (upserts, HIS-08), a title preserved in delete tombstones (HIS-03, HIS-07), and readers on the
/// other side of a many-to-many (HIS-09).
@Model public final class ConformanceEntry {
    /// The unique key.
    @Attribute(.unique) public var key: String
    /// Kept in the history tombstone when the entry is deleted.
    @Attribute(.preserveValueOnDeletion) public var title: String
    /// Not preserved: absent from tombstones.
    public var body: String
    /// A value updates change.
    public var pages: Int
    /// The readers (many-to-many with ``ConformanceReader/entries``).
    @Relationship(inverse: \ConformanceReader.entries) public var readers: [ConformanceReader] = []
    /// An entry.
    public init(key: String, title: String, body: String = "", pages: Int = 1) {
        self.key = key
        self.title = title
        self.body = body
        self.pages = pages
    }
}

/// A reader of many ``ConformanceEntry``s (the other side of the many-to-many, HIS-09).
@Model public final class ConformanceReader {
    /// The reader's name.
    public var name: String
    /// The entries read.
    public var entries: [ConformanceEntry] = []
    /// A reader.
    public init(name: String) { self.name = name }
}
