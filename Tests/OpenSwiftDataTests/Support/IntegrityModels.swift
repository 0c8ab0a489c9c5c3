import Foundation
import OpenSwiftData

// Models for what the conformance suites do not check: delete rules as pending-aware fetches
// see them before the save (PendingCascadeTests) and the [REC] timing decisions
// (IntegrityDecisionsTests). The rules themselves are the deleteRules suite's (DEL-*).

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

/// Every integrity model, for one container per test.
let integrityModels: [any PersistentModel.Type] = [
    IgParent.self, IgChild.self, IgHouse.self, IgRoom.self,
    IgLevel1.self, IgLevel2.self, IgLevel3.self, IgLeaf.self,
    IgDepartment.self, IgEmployee.self,
    Product.self, Tag.self, Category.self, Word.self, User.self,
    Trip.self, BusinessTrip.self, ExecutiveTrip.self, PersonalTrip.self, Traveler.self,
]
