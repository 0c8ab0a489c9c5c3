import Foundation
import OpenSwiftData

// Models for the integrity scenarios (behaviour reference §2, §3, §6): delete rules,
// relationship counts, one-way relationships, unique to-one and hierarchy-wide uniqueness.

/// Default delete rule (nullify) with an inverse: DEL-01, REL-*.
@Model final class IgParent {
    var name: String
    @Relationship(inverse: \IgChild.parent) var children: [IgChild] = []
    init(name: String) { self.name = name }
}

@Model final class IgChild {
    var name: String
    var parent: IgParent?
    init(name: String) { self.name = name }
}

/// Cascade to-many: DEL-02, DEL-13, DEL-15.
@Model final class IgHouse {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \IgRoom.house) var rooms: [IgRoom] = []
    init(name: String) { self.name = name }
}

@Model final class IgRoom {
    var name: String
    var house: IgHouse?
    init(name: String) { self.name = name }
}

/// Cascade to-one: DEL-03.
@Model final class IgVoyage {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \IgLodging.voyage) var lodging: IgLodging?
    init(name: String) { self.name = name }
}

@Model final class IgLodging {
    var place: String
    var voyage: IgVoyage?
    init(place: String) { self.place = place }
}

/// Recursive cascade, and a cascade that stops at nullify: DEL-04, DEL-05.
@Model final class IgLevel1 {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \IgLevel2.up) var downs: [IgLevel2] = []
    init(name: String) { self.name = name }
}

@Model final class IgLevel2 {
    var name: String
    var up: IgLevel1?
    @Relationship(deleteRule: .cascade, inverse: \IgLevel3.up) var downs: [IgLevel3] = []
    @Relationship(deleteRule: .nullify, inverse: \IgLeaf.up) var leaves: [IgLeaf] = []
    init(name: String) { self.name = name }
}

@Model final class IgLevel3 {
    var name: String
    var up: IgLevel2?
    init(name: String) { self.name = name }
}

@Model final class IgLeaf {
    var name: String
    var up: IgLevel2?
    init(name: String) { self.name = name }
}

/// `.noAction` with an inverse: DEL-07.
@Model final class IgOwner {
    var name: String
    @Relationship(deleteRule: .noAction, inverse: \IgGadget.owner) var gadget: IgGadget?
    init(name: String) { self.name = name }
}

@Model final class IgGadget {
    var name: String
    var owner: IgOwner?
    init(name: String) { self.name = name }
}

/// `.deny`: DEL-08.
@Model final class IgDepartment {
    var name: String
    @Relationship(deleteRule: .deny, inverse: \IgEmployee.department) var employees: [IgEmployee] = []
    init(name: String) { self.name = name }
}

@Model final class IgEmployee {
    var name: String
    var department: IgDepartment?
    init(name: String) { self.name = name }
}

/// One-way relationships (the target declares nothing back): DEL-14.
@Model final class IgMemo {
    var text: String
    var label: IgMarker?
    var markers: [IgMarker] = []
    init(text: String) { self.text = text }
}

@Model final class IgMarker {
    var name: String
    init(name: String) { self.name = name }
}

/// Relationship counts: REL-04.
@Model final class IgTeam {
    var name: String
    @Relationship(minimumModelCount: 1, maximumModelCount: 3, inverse: \IgMember.team) var members: [IgMember] = []
    init(name: String) { self.name = name }
}

@Model final class IgMember {
    var name: String
    var team: IgTeam?
    init(name: String) { self.name = name }
}

/// Unique key with a to-many relationship: UNQ-14.
@Model final class IgFolder {
    @Attribute(.unique) var key: String
    @Relationship(inverse: \IgFile.folder) var files: [IgFile] = []
    init(key: String) { self.key = key }
}

@Model final class IgFile {
    var name: String
    var folder: IgFolder?
    init(name: String) { self.name = name }
}

/// Unique to-one relationship: UNQ-21.
@Model final class IgPassport {
    #Unique<IgPassport>([\.holder])
    var number: String
    var holder: IgCitizen?
    init(number: String, holder: IgCitizen?) {
        self.number = number
        self.holder = holder
    }
}

@Model final class IgCitizen {
    var name: String
    init(name: String) { self.name = name }
}

/// The compound-unique review of the tutorials.
@Model final class IgReview {
    #Unique<IgReview>([\.author, \.title])
    var author: String
    var title: String
    var stars: Int
    init(author: String, title: String, stars: Int) {
        self.author = author
        self.title = title
        self.stars = stars
    }
}

/// A hierarchy whose base declares a unique name: UNQ-40, UNQ-41.
@Model class IgTour {
    @Attribute(.unique) var name: String
    var price: Int
    init(name: String, price: Int) {
        self.name = name
        self.price = price
    }
}

@Model final class IgCityTour: IgTour {
    var city: String
    init(name: String, price: Int, city: String) {
        self.city = city
        super.init(name: name, price: price)
    }
}

@Model final class IgBoatTour: IgTour {
    var boat: String
    init(name: String, price: Int, boat: String) {
        self.boat = boat
        super.init(name: name, price: price)
    }
}

/// Every integrity model, for one container per test.
let integrityModels: [any PersistentModel.Type] = [
    IgParent.self, IgChild.self, IgHouse.self, IgRoom.self, IgVoyage.self, IgLodging.self,
    IgLevel1.self, IgLevel2.self, IgLevel3.self, IgLeaf.self, IgOwner.self, IgGadget.self,
    IgDepartment.self, IgEmployee.self, IgMemo.self, IgMarker.self, IgTeam.self, IgMember.self,
    IgFolder.self, IgFile.self, IgPassport.self, IgCitizen.self, IgReview.self,
    IgTour.self, IgCityTour.self, IgBoatTour.self,
    Product.self, Tag.self, Category.self, Word.self, User.self,
    Trip.self, BusinessTrip.self, ExecutiveTrip.self, PersonalTrip.self, Traveler.self,
]


/// A non-optional to-one inverse: nullifying it is impossible (DEL-13 [REC]).
@Model final class IgMachine {
    var name: String
    @Relationship(inverse: \IgPart.machine) var parts: [IgPart] = []
    init(name: String) { self.name = name }
}

@Model final class IgPart {
    var name: String
    var machine: IgMachine
    init(name: String, machine: IgMachine) {
        self.name = name
        self.machine = machine
    }
}

let mandatoryModels: [any PersistentModel.Type] = [IgMachine.self, IgPart.self]
