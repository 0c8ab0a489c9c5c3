import Foundation
import OpenSwiftData

extension ConformanceSuite {
    /// Relationships: inserting graphs, inverses kept in sync, persistence of links.
    public static var relationships: ConformanceSuite {
        ConformanceSuite(
            name: "relationships", title: "graphs, inverses and persisted links",
            cases: [
                ConformanceCase(
                    suite: "relationships", id: "REL-01", title: "inserting a parent inserts its new children"
                ) { check in
                    let container = try check.container(for: ConformanceOwner.self)
                    let context = ModelContext(container)
                    let owner = ConformanceOwner(name: "parent")
                    owner.nullified = [ConformanceNullified(label: "a"), ConformanceNullified(label: "b")]
                    context.insert(owner)
                    try context.save()
                    let fresh = ModelContext(try check.reopen(container))
                    try check.expectEqual(
                        try fresh.fetchCount(FetchDescriptor<ConformanceNullified>()), 2,
                        "children saved with the parent")
                },
                ConformanceCase(
                    suite: "relationships", id: "REL-01",
                    title: "a three-level graph of new models is inserted and linked from its root"
                ) { check in
                    let container = try check.container(for: ConformanceHouse.self)
                    let context = ModelContext(container)
                    let house = ConformanceHouse(name: "h")
                    let floor = ConformanceFloor(name: "f")
                    floor.rooms = [ConformanceRoom(name: "r1"), ConformanceRoom(name: "r2")]
                    floor.furniture = [ConformanceFurniture(name: "sofa")]
                    house.floors = [floor]
                    context.insert(house)
                    try check.expect(
                        floor.rooms.allSatisfy { $0.modelContext === context },
                        "the whole graph is registered on insert", actual: "a room is not")
                    try context.save()
                    try check.expect(
                        floor.rooms.allSatisfy { !$0.persistentModelID.isTemporary },
                        "permanent identifiers after save", actual: "a temporary id")
                    let rooms = try ModelContext(try check.reopen(container)).fetch(
                        FetchDescriptor<ConformanceRoom>(sortBy: [SortDescriptor(\.name)]))
                    try check.expectEqual(
                        rooms.map { "\($0.name)@\($0.floor?.name ?? "-")/\($0.floor?.house?.name ?? "-")" },
                        ["r1@f/h", "r2@f/h"], "stored rooms with their floor and house")
                    try check.expectEqual(
                        try check.storedCount(ConformanceFurniture.self, in: container), 1, "furniture stored")
                },
                ConformanceCase(
                    suite: "relationships", id: "REL-01",
                    title: "a new parent can adopt children that are already stored"
                ) { check in
                    let container = try check.container(for: ConformanceParent.self, ConformanceChild.self)
                    let writer = ModelContext(container)
                    for name in ["a", "b", "c"] { writer.insert(ConformanceChild(name: name)) }
                    try writer.save()
                    let context = ModelContext(try check.reopen(container))
                    let stored = try context.fetch(
                        FetchDescriptor<ConformanceChild>(predicate: #Predicate { $0.name != "c" }))
                    let parent = ConformanceParent(name: "p")
                    parent.children = stored
                    context.insert(parent)
                    try context.save()
                    let children = try ModelContext(try check.reopen(container)).fetch(
                        FetchDescriptor<ConformanceChild>(sortBy: [SortDescriptor(\.name)]))
                    try check.expectEqual(
                        children.map { "\($0.name):\($0.parent?.name ?? "-")" }, ["a:p", "b:p", "c:-"],
                        "children and their parent")
                    try check.expectEqual(
                        try check.storedCount(ConformanceChild.self, in: container), 3, "no child duplicated")
                },
                ConformanceCase(
                    suite: "relationships", id: "REL-02",
                    title: "setting child.parent adds the child to parent.children before save"
                ) { check in
                    let container = try check.container(for: ConformanceParent.self, ConformanceChild.self)
                    let context = ModelContext(container)
                    let parent = ConformanceParent(name: "p")
                    context.insert(parent)
                    try context.save()
                    let saved = ConformanceChild(name: "saved")
                    context.insert(saved)
                    try context.save()
                    saved.parent = parent
                    try check.expect(
                        parent.children.contains { $0 === saved }, "a saved child appears in children",
                        actual: "\(parent.children.map(\.name))")
                    let pending = ConformanceChild(name: "pending")
                    context.insert(pending)
                    pending.parent = parent
                    try check.expectEqual(
                        parent.children.map(\.name).sorted(), ["pending", "saved"], "children before save")
                    try context.save()
                    let stored = try ModelContext(try check.reopen(container)).fetch(
                        FetchDescriptor<ConformanceParent>())
                    try check.expectEqual(
                        stored.first?.children.map(\.name).sorted(), ["pending", "saved"], "stored children")
                },
                ConformanceCase(
                    suite: "relationships", id: "REL-02",
                    title: "moving a child to another parent removes it from the old parent"
                ) { check in
                    let container = try check.container(for: ConformanceParent.self, ConformanceChild.self)
                    let context = ModelContext(container)
                    let one = ConformanceParent(name: "one")
                    let two = ConformanceParent(name: "two")
                    let a = ConformanceChild(name: "a")
                    let b = ConformanceChild(name: "b")
                    one.children = [a, b]
                    context.insert(one)
                    context.insert(two)
                    try context.save()
                    a.parent = two
                    try check.expectEqual(one.children.map(\.name), ["b"], "old parent's children")
                    try check.expectEqual(two.children.map(\.name), ["a"], "new parent's children")
                    two.children.append(b)
                    try check.expect(
                        b.parent === two, "appending to the new parent's list sets the child's parent",
                        actual: "\(b.parent?.name ?? "nil")")
                    try check.expectEqual(one.children.count, 0, "old parent's children after append")
                    try context.save()
                    let parents = try ModelContext(try check.reopen(container)).fetch(
                        FetchDescriptor<ConformanceParent>(sortBy: [SortDescriptor(\.name)]))
                    try check.expectEqual(
                        parents.map { "\($0.name):\($0.children.map(\.name).sorted())" },
                        ["one:[]", "two:[\"a\", \"b\"]"], "stored parents")
                },
                ConformanceCase(
                    suite: "relationships", id: "REL-02",
                    title: "many-to-many: appending on one side updates the other, both directions persist"
                ) { check in
                    let container = try check.container(for: ConformanceItem.self, ConformanceTag.self)
                    let context = ModelContext(container)
                    let red = ConformanceTag(label: "red")
                    let blue = ConformanceTag(label: "blue")
                    let x = ConformanceItem(name: "x")
                    let y = ConformanceItem(name: "y")
                    context.insert(x)
                    context.insert(y)
                    context.insert(red)
                    context.insert(blue)
                    x.tags.append(red)
                    x.tags.append(blue)
                    blue.items.append(y)
                    try check.expectEqual(red.items.map(\.name), ["x"], "red's items after x.tags.append")
                    try check.expectEqual(y.tags.map(\.label), ["blue"], "y's tags after blue.items.append")
                    try context.save()
                    let fresh = ModelContext(try check.reopen(container))
                    let items = try fresh.fetch(FetchDescriptor<ConformanceItem>(sortBy: [SortDescriptor(\.name)]))
                    try check.expectEqual(
                        items.map { "\($0.name):\($0.tags.map(\.label).sorted())" },
                        ["x:[\"blue\", \"red\"]", "y:[\"blue\"]"], "stored items")
                    let tags = try fresh.fetch(FetchDescriptor<ConformanceTag>(sortBy: [SortDescriptor(\.label)]))
                    try check.expectEqual(
                        tags.map { "\($0.label):\($0.items.map(\.name).sorted())" },
                        ["blue:[\"x\", \"y\"]", "red:[\"x\"]"], "stored tags")
                },
                ConformanceCase(
                    suite: "relationships", id: "REL-03",
                    title: "many-to-many: removing on one side removes on the other; nothing deleted"
                ) { check in
                    let container = try check.container(for: ConformanceItem.self, ConformanceTag.self)
                    let context = ModelContext(container)
                    let tag = ConformanceTag(label: "t")
                    let x = ConformanceItem(name: "x")
                    let y = ConformanceItem(name: "y")
                    x.tags = [tag]
                    y.tags = [tag]
                    context.insert(x)
                    context.insert(y)
                    try context.save()
                    let other = ModelContext(try check.reopen(container))
                    let storedTag = try other.fetch(FetchDescriptor<ConformanceTag>())[0]
                    storedTag.items.removeAll { $0.name == "x" }
                    try other.save()
                    let items = try ModelContext(try check.reopen(container)).fetch(
                        FetchDescriptor<ConformanceItem>(sortBy: [SortDescriptor(\.name)]))
                    try check.expectEqual(
                        items.map { "\($0.name):\($0.tags.count)" }, ["x:0", "y:1"], "stored items and tag counts")
                },
                ConformanceCase(
                    suite: "relationships", id: "REL-03",
                    title: "removing a child from the list clears its parent and never deletes it"
                ) { check in
                    let container = try check.container(for: ConformanceParent.self, ConformanceChild.self)
                    let context = ModelContext(container)
                    let parent = ConformanceParent(name: "p")
                    let a = ConformanceChild(name: "a")
                    let b = ConformanceChild(name: "b")
                    parent.children = [a, b]
                    context.insert(parent)
                    try context.save()
                    parent.children.removeAll { $0 === a }
                    try check.expect(a.parent == nil, "removed child's parent", expected: "nil", actual: "still set")
                    try check.expectEqual(a.isDeleted, false, "removed child isDeleted")
                    try check.expect(b.parent === parent, "the other child keeps its parent", actual: "changed")
                    try context.save()
                    let children = try ModelContext(try check.reopen(container)).fetch(
                        FetchDescriptor<ConformanceChild>(sortBy: [SortDescriptor(\.name)]))
                    try check.expectEqual(
                        children.map { "\($0.name):\($0.parent?.name ?? "-")" }, ["a:-", "b:p"], "stored children")
                },
                ConformanceCase(
                    suite: "relationships", id: "REL-03",
                    title: "setting a to-one to nil removes the child from the stored list"
                ) { check in
                    let container = try check.container(for: ConformanceParent.self, ConformanceChild.self)
                    let context = ModelContext(container)
                    let parent = ConformanceParent(name: "p")
                    parent.children = [ConformanceChild(name: "a"), ConformanceChild(name: "b")]
                    context.insert(parent)
                    try context.save()
                    let other = ModelContext(try check.reopen(container))
                    let a = try other.fetch(
                        FetchDescriptor<ConformanceChild>(predicate: #Predicate { $0.name == "a" }))[0]
                    a.parent = nil
                    try other.save()
                    let stored = try ModelContext(try check.reopen(container)).fetch(
                        FetchDescriptor<ConformanceParent>())
                    try check.expectEqual(stored.first?.children.map(\.name), ["b"], "stored children")
                    try check.expectEqual(
                        try check.storedCount(ConformanceChild.self, in: container), 2, "children stored")
                },
                ConformanceCase(
                    suite: "relationships", id: "REL-02",
                    title: "one-to-one: setting either side sets the other; reassigning clears the old partner"
                ) { check in
                    let container = try check.container(for: ConformanceVoyage.self, ConformanceLodging.self)
                    let context = ModelContext(container)
                    let v1 = ConformanceVoyage(name: "v1")
                    let v2 = ConformanceVoyage(name: "v2")
                    let inn = ConformanceLodging(place: "inn")
                    let tent = ConformanceLodging(place: "tent")
                    for v in [v1, v2] { context.insert(v) }
                    for l in [inn, tent] { context.insert(l) }
                    v1.lodging = inn
                    try check.expect(
                        inn.voyage === v1, "inn.voyage after v1.lodging = inn", actual: "\(inn.voyage?.name ?? "nil")")
                    tent.voyage = v2
                    try check.expect(
                        v2.lodging === tent, "v2.lodging after tent.voyage = v2",
                        actual: "\(v2.lodging?.place ?? "nil")")
                    v2.lodging = inn
                    try check.expect(
                        v1.lodging == nil, "v1 loses the inn", expected: "nil", actual: "\(v1.lodging?.place ?? "nil")")
                    try check.expect(
                        tent.voyage == nil, "the tent loses v2", expected: "nil",
                        actual: "\(tent.voyage?.name ?? "nil")")
                    try context.save()
                    let voyages = try ModelContext(try check.reopen(container)).fetch(
                        FetchDescriptor<ConformanceVoyage>(sortBy: [SortDescriptor(\.name)]))
                    try check.expectEqual(
                        voyages.map { "\($0.name):\($0.lodging?.place ?? "-")" }, ["v1:-", "v2:inn"], "stored voyages")
                    let lodgings = try ModelContext(try check.reopen(container)).fetch(
                        FetchDescriptor<ConformanceLodging>(sortBy: [SortDescriptor(\.place)]))
                    try check.expectEqual(
                        lodgings.map { "\($0.place):\($0.voyage?.name ?? "-")" }, ["inn:v2", "tent:-"],
                        "stored lodgings")
                },
                ConformanceCase(
                    suite: "relationships", id: "REL-04",
                    title: "minimumModelCount: an empty team fails to save, nothing written; fixed, it saves"
                ) { check in
                    let container = try check.container(
                        for: ConformanceTeam.self, ConformanceTeamMember.self, ConformanceParent.self)
                    let context = ModelContext(container)
                    let team = ConformanceTeam(name: "t")
                    context.insert(team)
                    context.insert(ConformanceParent(name: "bystander"))
                    let error = try check.expectError(
                        SwiftDataError.modelValidationFailure, "save of a team with no members"
                    ) { try context.save() }
                    try check.expectEqual(error.entityName, "ConformanceTeam", "model named by the error")
                    try check.expectEqual(error.relationshipName, "members", "relationship named by the error")
                    try check.expectEqual(try check.storedCount(ConformanceTeam.self, in: container), 0, "teams stored")
                    try check.expectEqual(
                        try check.storedCount(ConformanceParent.self, in: container), 0,
                        "nothing else from the failed save stored")
                    try check.expectEqual(context.hasChanges, true, "changes kept for a retry")
                    team.members = [ConformanceTeamMember(name: "m1")]
                    try check.expectNoError("save after adding a member") { try context.save() }
                    try check.expectEqual(
                        try check.storedCount(ConformanceTeam.self, in: container), 1, "teams stored after the retry")
                },
                ConformanceCase(
                    suite: "relationships", id: "REL-04",
                    title: "maximumModelCount and removing the last member are refused at save"
                ) { check in
                    let container = try check.container(for: ConformanceTeam.self, ConformanceTeamMember.self)
                    let context = ModelContext(container)
                    let team = ConformanceTeam(name: "t")
                    team.members = [ConformanceTeamMember(name: "m1")]
                    context.insert(team)
                    try context.save()
                    team.members.append(contentsOf: (2...4).map { ConformanceTeamMember(name: "m\($0)") })
                    try check.expectError(SwiftDataError.modelValidationFailure, "save of a team with four members") {
                        try context.save()
                    }
                    try check.expectEqual(
                        try check.storedCount(ConformanceTeamMember.self, in: container), 1, "members stored")
                    context.rollback()
                    try check.expectEqual(
                        try context.fetch(FetchDescriptor<ConformanceTeam>()).first?.members.count, 1,
                        "members after rollback")
                    team.members.append(contentsOf: (2...3).map { ConformanceTeamMember(name: "m\($0)") })
                    try check.expectNoError("save of a team with three members") { try context.save() }
                    team.members = []
                    try check.expectError(
                        SwiftDataError.modelValidationFailure, "save of a team with its members removed"
                    ) { try context.save() }
                    context.rollback()
                    let stored = try ModelContext(try check.reopen(container)).fetch(FetchDescriptor<ConformanceTeam>())
                    try check.expectEqual(
                        stored.first?.members.map(\.name).sorted(), ["m1", "m2", "m3"], "stored members")
                },
                ConformanceCase(
                    suite: "relationships", id: "REL-04",
                    title:
                        "a count violation inside transaction {} throws, writes nothing, keeps the changes for a retry"
                ) { check in
                    let container = try check.container(
                        for: ConformanceTeam.self, ConformanceTeamMember.self, ConformanceParent.self)
                    let context = ModelContext(container)
                    let team = ConformanceTeam(name: "t")
                    try check.expectError(
                        SwiftDataError.modelValidationFailure, "transaction inserting a team with no members"
                    ) {
                        try context.transaction {
                            context.insert(ConformanceParent(name: "bystander"))
                            context.insert(team)
                        }
                    }
                    try check.expectEqual(
                        try check.storedCount(ConformanceParent.self, in: container), 0,
                        "nothing from the transaction stored")
                    try check.expectEqual(context.insertedModelsArray.count, 2, "inserts kept pending")
                    team.members = [ConformanceTeamMember(name: "m")]
                    try check.expectNoError("save after adding a member") { try context.save() }
                    try check.expectEqual(
                        try check.storedCount(ConformanceParent.self, in: container), 1,
                        "parents stored after the retry")
                    try check.expectEqual(
                        try check.storedCount(ConformanceTeamMember.self, in: container), 1,
                        "members stored after the retry")
                },
                ConformanceCase(
                    suite: "relationships", id: "REL-02",
                    title:
                        "a to-one assigned in init appears in the inverse after insert, without duplicates when also linked by hand"
                ) { check in
                    let container = try check.container(for: ConformanceMachine.self, ConformancePart.self)
                    let context = ModelContext(container)
                    let machine = ConformanceMachine(name: "m")
                    context.insert(machine)
                    let a = ConformancePart(name: "a", machine: machine)
                    context.insert(a)
                    try check.expectEqual(
                        machine.parts.map(\.name), ["a"], "parts after inserting a part made with its machine")
                    let b = ConformancePart(name: "b", machine: machine)
                    machine.parts.append(b)
                    context.insert(b)
                    try check.expectEqual(machine.parts.map(\.name), ["a", "b"], "parts after linking by hand too")
                    try context.save()
                    try check.expectEqual(machine.parts.count, 2, "parts after save")
                    let stored = try ModelContext(try check.reopen(container)).fetch(
                        FetchDescriptor<ConformanceMachine>())
                    try check.expectEqual(stored.first?.parts.map(\.name).sorted(), ["a", "b"], "stored parts")
                },
                ConformanceCase(
                    suite: "relationships", id: "REL-02",
                    title: "links to a stored parent whose to-many is not loaded show before save and persist"
                ) { check in
                    let container = try check.container(for: ConformanceParent.self, ConformanceChild.self)
                    let setup = ModelContext(container)
                    let animals = ConformanceParent(name: "animals")
                    let plants = ConformanceParent(name: "plants")
                    animals.children = [ConformanceChild(name: "cat"), ConformanceChild(name: "dog")]
                    setup.insert(animals)
                    setup.insert(plants)
                    try setup.save()
                    let context = ModelContext(try check.reopen(container))
                    let parents = try context.fetch(
                        FetchDescriptor<ConformanceParent>(sortBy: [SortDescriptor(\.name)]))
                    try check.expectEqual(parents.map(\.name), ["animals", "plants"], "stored parents")
                    let dog = try context.fetch(
                        FetchDescriptor<ConformanceChild>(predicate: #Predicate { $0.name == "dog" }))
                    try check.expectEqual(dog.count, 1, "dog found")
                    let cow = ConformanceChild(name: "cow")
                    cow.parent = parents[0]  // animals.children is not loaded yet
                    dog[0].parent = parents[1]  // moves a stored child away from animals
                    try check.expectEqual(
                        parents[0].children.map(\.name).sorted(), ["cat", "cow"], "animals' children before save")
                    try check.expectEqual(parents[1].children.map(\.name), ["dog"], "plants' children before save")
                    try context.save()
                    let reader = ModelContext(try check.reopen(container))
                    let again = try reader.fetch(FetchDescriptor<ConformanceParent>(sortBy: [SortDescriptor(\.name)]))
                    try check.expectEqual(
                        again.map { "\($0.name):\($0.children.map(\.name).sorted())" },
                        ["animals:[\"cat\", \"cow\"]", "plants:[\"dog\"]"], "stored parents and children")
                    try check.expectEqual(
                        try reader.fetchCount(FetchDescriptor<ConformanceChild>()), 3, "children stored")
                },
                ConformanceCase(
                    suite: "relationships", id: "REL-02",
                    title: "an optional to-many ([T]?) keeps inverses in sync and reads [] rather than nil"
                ) { check in
                    let container = try check.container(for: ConformanceAlbum.self, ConformanceKeyword.self)
                    let context = ModelContext(container)
                    let album = ConformanceAlbum(name: "a")
                    let sea = ConformanceKeyword(word: "sea")
                    let p1 = ConformancePhoto(caption: "p1")
                    let p2 = ConformancePhoto(caption: "p2")
                    context.insert(album)
                    context.insert(sea)
                    try check.expectEqual(album.photos?.count, 0, "an empty optional list reads []")
                    p1.album = album
                    album.photos?.append(p2)
                    try check.expect(
                        p2.album === album, "appending through the optional list sets the inverse",
                        actual: "\(p2.album?.name ?? "nil")")
                    try check.expectEqual(
                        album.photos?.map(\.caption).sorted(), ["p1", "p2"], "setting the to-one adds to the list")
                    p1.keywords = [sea]
                    try check.expectEqual(sea.photos?.map(\.caption), ["p1"], "declared many-to-many inverse")
                    try context.save()
                    album.photos = nil
                    try check.expectEqual(album.photos?.count, 0, "assigning nil clears the list, which reads []")
                    try check.expect(
                        p1.album == nil && p2.album == nil, "and the inverses", actual: "an album is still set")
                    try context.save()
                    let fresh = ModelContext(try check.reopen(container))
                    let photos = try fresh.fetch(FetchDescriptor<ConformancePhoto>(sortBy: [SortDescriptor(\.caption)]))
                    try check.expectEqual(
                        photos.map { "\($0.caption):\($0.album?.name ?? "-"):\($0.keywords?.map(\.word) ?? [])" },
                        ["p1:-:[\"sea\"]", "p2:-:[]"], "stored photos")
                    try check.expectEqual(
                        try fresh.fetch(FetchDescriptor<ConformanceAlbum>()).first?.photos?.count, 0,
                        "stored album's list reads []")
                },
            ])
    }
}
