import Foundation
import OpenSwiftData

// The models the conformance suites use. They are public so a team can open a store the
// suites wrote, and so their schema shows what each suite exercises.

/// An account with a unique handle (UNQ- cases): `@Attribute(.unique)` upserts at save.
@Model package final class ConformanceAccount {
    /// The unique key.
    @Attribute(.unique) package var handle: String
    /// A value an upsert overwrites.
    package var balance: Int
    /// An optional value (nil never collides).
    package var email: String?
    /// An account with a handle and a balance.
    package init(handle: String, balance: Int, email: String? = nil) {
        self.handle = handle
        self.balance = balance
        self.email = email
    }
}

/// The tutorial user, unique on a UUID (UNQ-10): the key is stored as 16 bytes and an upsert
/// overwrites the other attributes, a `Date` included.
@Model package final class ConformanceUser {
    /// The unique key.
    @Attribute(.unique) package var id: UUID
    /// The user's name.
    package var name: String
    /// When the user joined.
    package var joined: Date
    /// A user with an identifier, a name and a joining date.
    package init(id: UUID, name: String, joined: Date) {
        self.id = id
        self.name = name
        self.joined = joined
    }
}

/// A row unique on the pair (`first`, `second`) through `#Unique` (compound uniqueness).
@Model package final class ConformancePair {
    #Unique<ConformancePair>([\.first, \.second])
    /// The first half of the key.
    package var first: String
    /// The second half of the key.
    package var second: Int
    /// A value an upsert overwrites.
    package var value: Double
    /// A pair row.
    package init(first: String, second: Int, value: Double) {
        self.first = first
        self.second = second
        self.value = value
    }
}

/// An owner with one to-many relationship per delete rule (DEL- and REL- cases).
@Model package final class ConformanceOwner {
    /// The owner's name.
    package var name: String
    /// Children deleted with the owner.
    @Relationship(deleteRule: .cascade, inverse: \ConformanceCascaded.owner) package var cascaded:
        [ConformanceCascaded] = []
    /// Children whose `owner` becomes nil (the default rule, stated explicitly).
    @Relationship(deleteRule: .nullify, inverse: \ConformanceNullified.owner) package var nullified:
        [ConformanceNullified] = []
    /// Children that forbid deleting a non-empty owner.
    @Relationship(deleteRule: .deny, inverse: \ConformanceDenied.owner) package var denied: [ConformanceDenied] = []
    /// An owner with a name.
    package init(name: String) { self.name = name }
}

/// A child deleted with its owner (`.cascade`).
@Model package final class ConformanceCascaded {
    /// The child's label.
    package var label: String
    /// The owning side.
    package var owner: ConformanceOwner?
    /// A child with a label.
    package init(label: String) { self.label = label }
}

/// A child left behind with a nil owner (`.nullify`).
@Model package final class ConformanceNullified {
    /// The child's label.
    package var label: String
    /// The owning side.
    package var owner: ConformanceOwner?
    /// A child with a label.
    package init(label: String) { self.label = label }
}

/// A child whose presence forbids deleting its owner (`.deny`).
@Model package final class ConformanceDenied {
    /// The child's label.
    package var label: String
    /// The owning side.
    package var owner: ConformanceOwner?
    /// A child with a label.
    package init(label: String) { self.label = label }
}

/// The base of a three-level hierarchy (INH- cases).
@Model package class ConformanceVehicle {
    /// The vehicle's name.
    package var name: String
    /// Wheels, for predicates on an inherited attribute.
    package var wheels: Int
    /// A vehicle.
    package init(name: String, wheels: Int) {
        self.name = name
        self.wheels = wheels
    }
}

/// A subclass with its own attribute.
@Model package class ConformanceCar: ConformanceVehicle {
    /// Seats, stored only for cars.
    package var seats: Int
    /// A car.
    package init(name: String, seats: Int) {
        self.seats = seats
        super.init(name: name, wheels: 4)
    }
}

/// A subclass of a subclass.
@Model package final class ConformanceElectricCar: ConformanceCar {
    /// Battery capacity in kWh.
    package var batteryKWh: Double
    /// An electric car.
    package init(name: String, seats: Int, batteryKWh: Double) {
        self.batteryKWh = batteryKWh
        super.init(name: name, seats: seats)
    }
}

/// A second subclass of the base.
@Model package final class ConformanceTruck: ConformanceVehicle {
    /// Payload in tonnes.
    package var payload: Double
    /// A truck.
    package init(name: String, wheels: Int, payload: Double) {
        self.payload = payload
        super.init(name: name, wheels: wheels)
    }
}

/// A row with one attribute of each common type (PRD- and FET- cases).
@Model package final class ConformanceRecord {
    /// A string compared case-sensitively.
    package var name: String
    /// An integer.
    package var number: Int
    /// A floating-point amount.
    package var amount: Double
    /// An optional string (nil handling).
    package var note: String?
    /// An optional integer.
    package var rank: Int?
    /// A boolean flag.
    package var flag: Bool
    /// A date.
    package var date: Date
    /// A record.
    package init(
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
@Model package final class ConformanceContact {
    #Unique<ConformanceContact>([\.code], [\.givenName, \.familyName])
    /// The first key.
    package var code: Int
    /// Half of the second key.
    package var givenName: String
    /// The other half of the second key.
    package var familyName: String
    /// A value an upsert overwrites.
    package var phone: String
    /// A contact.
    package init(code: Int, givenName: String, familyName: String, phone: String = "") {
        self.code = code
        self.givenName = givenName
        self.familyName = familyName
        self.phone = phone
    }
}

/// A badge whose unique code is optional: nil codes never collide (UNQ-19).
@Model package final class ConformanceBadge {
    /// The optional unique key.
    @Attribute(.unique) package var code: String?
    /// Who holds the badge.
    package var holder: String
    /// A badge.
    package init(code: String?, holder: String) {
        self.code = code
        self.holder = holder
    }
}

/// A folder with a unique key and a to-many relationship an upsert replaces (UNQ-14).
@Model package final class ConformanceFolder {
    /// The unique key.
    @Attribute(.unique) package var key: String
    /// The folder's files (default delete rule, nullify).
    @Relationship(inverse: \ConformanceFile.folder) package var files: [ConformanceFile] = []
    /// A folder.
    package init(key: String) { self.key = key }
}

/// A file in a ``ConformanceFolder``.
@Model package final class ConformanceFile {
    /// The file's name.
    package var name: String
    /// The containing folder.
    package var folder: ConformanceFolder?
    /// A file.
    package init(name: String) { self.name = name }
}

/// A passport unique on its to-one `holder` through `#Unique` (UNQ-21).
@Model package final class ConformancePassport {
    #Unique<ConformancePassport>([\.holder])
    /// The passport number (not unique).
    package var number: String
    /// The holder; one passport per holder, nil never collides.
    package var holder: ConformanceCitizen?
    /// A passport.
    package init(number: String, holder: ConformanceCitizen?) {
        self.number = number
        self.holder = holder
    }
}

/// The holder of a ``ConformancePassport``.
@Model package final class ConformanceCitizen {
    /// The citizen's name.
    package var name: String
    /// A citizen.
    package init(name: String) { self.name = name }
}

/// The base of a hierarchy whose unique `name` is declared on the base (UNQ-40, UNQ-41).
@Model package class ConformanceTour {
    /// Unique across the whole hierarchy.
    @Attribute(.unique) package var name: String
    /// A value an upsert overwrites.
    package var price: Int
    /// A tour.
    package init(name: String, price: Int) {
        self.name = name
        self.price = price
    }
}

/// A subclass of ``ConformanceTour``.
@Model package final class ConformanceCityTour: ConformanceTour {
    /// The city visited.
    package var city: String
    /// A city tour.
    package init(name: String, price: Int, city: String) {
        self.city = city
        super.init(name: name, price: price)
    }
}

/// Another subclass of ``ConformanceTour``.
@Model package final class ConformanceBoatTour: ConformanceTour {
    /// The boat's name.
    package var boat: String
    /// A boat tour.
    package init(name: String, price: Int, boat: String) {
        self.boat = boat
        super.init(name: name, price: price)
    }
}

// MARK: Delete rules and relationships

/// A parent whose to-many uses the default delete rule (nullify) (DEL-01, REL-01…03).
@Model package final class ConformanceParent {
    /// The parent's name.
    package var name: String
    /// Children, with the default delete rule.
    @Relationship(inverse: \ConformanceChild.parent) package var children: [ConformanceChild] = []
    /// A parent.
    package init(name: String) { self.name = name }
}

/// A child of a ``ConformanceParent``.
@Model package final class ConformanceChild {
    /// The child's name.
    package var name: String
    /// The parent, nil once removed or nullified.
    package var parent: ConformanceParent?
    /// A child.
    package init(name: String) { self.name = name }
}

/// A voyage owning its lodging through a cascading to-one (DEL-03, one-to-one inverses).
@Model package final class ConformanceVoyage {
    /// The voyage's name.
    package var name: String
    /// Deleted with the voyage.
    @Relationship(deleteRule: .cascade, inverse: \ConformanceLodging.voyage) package var lodging: ConformanceLodging?
    /// A voyage.
    package init(name: String) { self.name = name }
}

/// The to-one target of ``ConformanceVoyage/lodging``.
@Model package final class ConformanceLodging {
    /// Where.
    package var place: String
    /// The inverse to-one.
    package var voyage: ConformanceVoyage?
    /// A lodging.
    package init(place: String) { self.place = place }
}

/// The top of a three-level cascade: house → floors → rooms (DEL-04, DEL-05).
@Model package final class ConformanceHouse {
    /// The house's name.
    package var name: String
    /// Floors, deleted with the house.
    @Relationship(deleteRule: .cascade, inverse: \ConformanceFloor.house) package var floors: [ConformanceFloor] = []
    /// A house.
    package init(name: String) { self.name = name }
}

/// The middle level: cascades to rooms, nullifies furniture.
@Model package final class ConformanceFloor {
    /// The floor's name.
    package var name: String
    /// The owning house.
    package var house: ConformanceHouse?
    /// Rooms, deleted with the floor.
    @Relationship(deleteRule: .cascade, inverse: \ConformanceRoom.floor) package var rooms: [ConformanceRoom] = []
    /// Furniture, left behind with a nil floor.
    @Relationship(deleteRule: .nullify, inverse: \ConformanceFurniture.floor) package var furniture:
        [ConformanceFurniture] = []
    /// A floor.
    package init(name: String) { self.name = name }
}

/// The bottom level of the cascade.
@Model package final class ConformanceRoom {
    /// The room's name.
    package var name: String
    /// The owning floor.
    package var floor: ConformanceFloor?
    /// A room.
    package init(name: String) { self.name = name }
}

/// Furniture that survives its floor (a cascade stops at nullify).
@Model package final class ConformanceFurniture {
    /// The piece's name.
    package var name: String
    /// The floor, nil after the floor is deleted.
    package var floor: ConformanceFloor?
    /// A piece of furniture.
    package init(name: String) { self.name = name }
}

/// One side of a many-to-many relationship (DEL-06, REL many-to-many).
@Model package final class ConformanceItem {
    /// The item's name.
    package var name: String
    /// Tags, nullified on either side's deletion.
    @Relationship(inverse: \ConformanceTag.items) package var tags: [ConformanceTag] = []
    /// An item.
    package init(name: String) { self.name = name }
}

/// The other side of the many-to-many with ``ConformanceItem``.
@Model package final class ConformanceTag {
    /// The tag's label.
    package var label: String
    /// The tagged items.
    package var items: [ConformanceItem] = []
    /// A tag.
    package init(label: String) { self.label = label }
}

/// An owner of a gadget through a `.noAction` to-one (DEL-07).
@Model package final class ConformanceGadgetOwner {
    /// The owner's name.
    package var name: String
    /// Left alone when the owner is deleted.
    @Relationship(deleteRule: .noAction, inverse: \ConformanceGadget.owner) package var gadget: ConformanceGadget?
    /// A gadget owner.
    package init(name: String) { self.name = name }
}

/// The target of a `.noAction` rule.
@Model package final class ConformanceGadget {
    /// The gadget's name.
    package var name: String
    /// The inverse of ``ConformanceGadgetOwner/gadget``.
    package var owner: ConformanceGadgetOwner?
    /// A gadget.
    package init(name: String) { self.name = name }
}

/// A memo with one-way relationships: the marker declares nothing back (DEL-14).
@Model package final class ConformanceMemo {
    /// The memo's text.
    package var text: String
    /// A one-way to-one.
    package var label: ConformanceMarker?
    /// A one-way to-many.
    package var markers: [ConformanceMarker] = []
    /// A memo.
    package init(text: String) { self.text = text }
}

/// The target of ``ConformanceMemo``'s one-way relationships.
@Model package final class ConformanceMarker {
    /// The marker's name.
    package var name: String
    /// A marker.
    package init(name: String) { self.name = name }
}

/// A machine whose parts hold a non-optional to-one back to it (DEL-13: nullifying is impossible).
@Model package final class ConformanceMachine {
    /// The machine's name.
    package var name: String
    /// The parts (default rule, nullify).
    @Relationship(inverse: \ConformancePart.machine) package var parts: [ConformancePart] = []
    /// A machine.
    package init(name: String) { self.name = name }
}

/// A part that must always belong to a machine.
@Model package final class ConformancePart {
    /// The part's name.
    package var name: String
    /// The non-optional owner.
    package var machine: ConformanceMachine
    /// A part of `machine`.
    package init(name: String, machine: ConformanceMachine) {
        self.name = name
        self.machine = machine
    }
}

/// A team that must have one to three members (REL-04).
@Model package final class ConformanceTeam {
    /// The team's name.
    package var name: String
    /// Between one and three members, validated at save.
    @Relationship(minimumModelCount: 1, maximumModelCount: 3, inverse: \ConformanceTeamMember.team)
    package var members: [ConformanceTeamMember] = []
    /// A team.
    package init(name: String) { self.name = name }
}

/// A member of a ``ConformanceTeam``.
@Model package final class ConformanceTeamMember {
    /// The member's name.
    package var name: String
    /// The team.
    package var team: ConformanceTeam?
    /// A member.
    package init(name: String) { self.name = name }
}

/// A garage whose vehicles are typed as the hierarchy's base (INH-07).
@Model package final class ConformanceGarage {
    /// The garage's name.
    package var name: String
    /// Vehicles of any subclass, deleted with the garage (one-way: vehicles declare nothing back).
    @Relationship(deleteRule: .cascade) package var vehicles: [ConformanceVehicle] = []
    /// A garage.
    package init(name: String) { self.name = name }
}

// MARK: Predicates

/// A raw-value enum stored as its raw value (PRD-19).
package enum ConformanceStatus: String, Codable, CaseIterable, Sendable {
    /// Not yet published.
    case draft
    /// Published.
    case published
    /// Withdrawn.
    case retired
}

/// An author with an optional birth year and a to-many of books (PRD-09, PRD-10).
@Model package final class ConformanceAuthor {
    /// The author's name.
    package var name: String
    /// The birth year, nil for some authors.
    package var born: Int?
    /// The author's books.
    @Relationship(inverse: \ConformanceBook.author) package var books: [ConformanceBook] = []
    /// An author.
    package init(name: String, born: Int? = nil) {
        self.name = name
        self.born = born
    }
}

/// A label attached to books through a many-to-many (PRD-10…12).
@Model package final class ConformanceLabel {
    /// The label's name.
    package var name: String
    /// Whether the label is public (for `allSatisfy`).
    package var isPublic: Bool
    /// The labelled books.
    package var books: [ConformanceBook] = []
    /// A label.
    package init(name: String, isPublic: Bool) {
        self.name = name
        self.isPublic = isPublic
    }
}

/// A chapter of a ``ConformanceBook``: the to-many side whose inverse is a foreign key (PRD-10…12).
@Model package final class ConformanceChapter {
    /// The chapter's title.
    package var title: String
    /// Page count.
    package var pages: Int
    /// The containing book.
    package var book: ConformanceBook?
    /// A chapter.
    package init(title: String, pages: Int) {
        self.title = title
        self.pages = pages
    }
}

/// A book: optionals, a UUID, an enum, a to-one and to-manys (a join table and an inverse foreign key),
/// a transient and a computed property (PRD-*).
@Model package final class ConformanceBook {
    /// A UUID key (captured-array `contains`).
    package var code: UUID
    /// The title.
    package var title: String
    /// An optional subtitle.
    package var subtitle: String?
    /// Page count.
    package var pages: Int
    /// Price.
    package var price: Double
    /// An optional rating (a nullable `Double`).
    package var rating: Double?
    /// Optional stock.
    package var stock: Int?
    /// Optional publication date.
    package var published: Date?
    /// A flag.
    package var isFeatured: Bool
    /// A raw-value enum.
    package var status: ConformanceStatus
    /// The optional author.
    package var author: ConformanceAuthor?
    /// Labels (many-to-many).
    @Relationship(inverse: \ConformanceLabel.books) package var labels: [ConformanceLabel] = []
    /// Chapters (one-to-many, the inverse holds the foreign key).
    @Relationship(inverse: \ConformanceChapter.book) package var chapters: [ConformanceChapter] = []
    /// Not stored: predicates on it are unsupported.
    @Transient package var scratch: Int = 0
    /// Computed, not stored: predicates on it are unsupported.
    package var shoutedTitle: String { title.uppercased() }
    /// A book.
    package init(
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
@Model package final class ConformanceAlbum {
    /// The album's name.
    package var name: String = ""
    /// Its photos, deleted with it; reads `[]`, never `nil`, as in SwiftData.
    @Relationship(deleteRule: .cascade, inverse: \ConformancePhoto.album) package var photos: [ConformancePhoto]? = []
    /// An album.
    package init(name: String) { self.name = name }
}

/// A photo of a ``ConformanceAlbum``, with optional many-to-many keywords.
@Model package final class ConformancePhoto {
    /// The photo's caption.
    package var caption: String = ""
    /// The album, nil once removed.
    package var album: ConformanceAlbum?
    /// Keywords shared by many photos; ``ConformanceKeyword/photos`` declares the inverse.
    package var keywords: [ConformanceKeyword]? = nil
    /// A photo.
    package init(caption: String) { self.caption = caption }
}

/// A keyword shared by many ``ConformancePhoto``s (both sides optional to-many).
@Model package final class ConformanceKeyword {
    /// The keyword.
    package var word: String = ""
    /// The photos carrying it (a many-to-many pair is never inferred, so it declares its inverse).
    @Relationship(inverse: \ConformancePhoto.keywords) package var photos: [ConformancePhoto]? = nil
    /// A keyword.
    package init(word: String) { self.word = word }
}

// MARK: History

/// A journal entry whose saves are read back as persistent history (HIS- cases): a unique key
/// (upserts, HIS-08), a title preserved in delete tombstones (HIS-03, HIS-07), and readers on the
/// other side of a many-to-many (HIS-09).
@Model package final class ConformanceEntry {
    /// The unique key.
    @Attribute(.unique) package var key: String
    /// Kept in the history tombstone when the entry is deleted.
    @Attribute(.preserveValueOnDeletion) package var title: String
    /// Not preserved: absent from tombstones.
    package var body: String
    /// A value updates change.
    package var pages: Int
    /// The readers (many-to-many with ``ConformanceReader/entries``).
    @Relationship(inverse: \ConformanceReader.entries) package var readers: [ConformanceReader] = []
    /// An entry.
    package init(key: String, title: String, body: String = "", pages: Int = 1) {
        self.key = key
        self.title = title
        self.body = body
        self.pages = pages
    }
}

/// A reader of many ``ConformanceEntry``s (the other side of the many-to-many, HIS-09).
@Model package final class ConformanceReader {
    /// The reader's name.
    package var name: String
    /// The entries read.
    package var entries: [ConformanceEntry] = []
    /// A reader.
    package init(name: String) { self.name = name }
}
