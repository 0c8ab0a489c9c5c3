import Foundation
import OpenSwiftData

extension ConformanceSuite {
    /// Delete rules: cascade, nullify, deny and no-action, applied at save.
    public static var deleteRules: ConformanceSuite {
        ConformanceSuite(
            name: "deleteRules", title: "cascade, nullify, deny and noAction",
            cases: [
                ConformanceCase(
                    suite: "deleteRules", id: "DEL-01",
                    title: "the default rule nullifies: children survive with parent == nil"
                ) { check in
                    let container = try check.container(for: ConformanceParent.self, ConformanceChild.self)
                    let context = ModelContext(container)
                    let parent = ConformanceParent(name: "p")
                    let a = ConformanceChild(name: "a")
                    let b = ConformanceChild(name: "b")
                    parent.children = [a, b]
                    context.insert(parent)
                    try context.save()
                    context.delete(parent)
                    try context.save()
                    try check.expect(
                        a.parent == nil && b.parent == nil, "in-memory children lost their parent",
                        actual: "a parent is still set")
                    try check.expectEqual(
                        try check.storedCount(ConformanceParent.self, in: container), 0, "parents left")
                    let children = try ModelContext(try check.reopen(container)).fetch(
                        FetchDescriptor<ConformanceChild>(sortBy: [SortDescriptor(\.name)]))
                    try check.expectEqual(children.map(\.name), ["a", "b"], "children left")
                    try check.expect(
                        children.allSatisfy { $0.parent == nil }, "stored children have no parent",
                        actual: "a stored parent")
                },
                ConformanceCase(
                    suite: "deleteRules", id: "DEL-01",
                    title: "an explicit .nullify deleted from an unloaded context clears the stored links"
                ) { check in
                    let container = try check.container(for: ConformanceOwner.self)
                    let context = ModelContext(container)
                    let owner = ConformanceOwner(name: "o")
                    owner.nullified = [ConformanceNullified(label: "x"), ConformanceNullified(label: "y")]
                    context.insert(owner)
                    try context.save()
                    let other = ModelContext(try check.reopen(container))
                    let stored = try other.fetch(FetchDescriptor<ConformanceOwner>())
                    try check.expectEqual(stored.count, 1, "owners before delete")
                    for o in stored { other.delete(o) }
                    try other.save()
                    let left = try ModelContext(try check.reopen(container)).fetch(
                        FetchDescriptor<ConformanceNullified>(sortBy: [SortDescriptor(\.label)]))
                    try check.expectEqual(left.map(\.label), ["x", "y"], "nullified children left")
                    try check.expect(
                        left.allSatisfy { $0.owner == nil }, "their owner is nil", actual: "an owner is set")
                },
                ConformanceCase(suite: "deleteRules", id: "DEL-02", title: "cascade deletes the owner's children") {
                    check in
                    let container = try check.container(for: ConformanceOwner.self)
                    let context = ModelContext(container)
                    let owner = ConformanceOwner(name: "house")
                    context.insert(owner)
                    owner.cascaded = [ConformanceCascaded(label: "kitchen"), ConformanceCascaded(label: "hall")]
                    try context.save()
                    context.delete(owner)
                    try context.save()
                    let fresh = ModelContext(try check.reopen(container))
                    try check.expectEqual(
                        try fresh.fetchCount(FetchDescriptor<ConformanceCascaded>()), 0, "children left after cascade")
                    try check.expectEqual(try fresh.fetchCount(FetchDescriptor<ConformanceOwner>()), 0, "owners left")
                },
                ConformanceCase(
                    suite: "deleteRules", id: "DEL-02",
                    title:
                        "cascade through an optional to-many ([T]?) deletes the children; DEL-06 nullify removes a deleted photo from its keywords"
                ) { check in
                    let container = try check.container(for: ConformanceAlbum.self, ConformanceKeyword.self)
                    let context = ModelContext(container)
                    let album = ConformanceAlbum(name: "a")
                    let kept = ConformanceAlbum(name: "b")
                    let sea = ConformanceKeyword(word: "sea")
                    [album, kept].forEach(context.insert)
                    context.insert(sea)
                    album.photos = [ConformancePhoto(caption: "p1"), ConformancePhoto(caption: "p2")]
                    let other = ConformancePhoto(caption: "q")
                    kept.photos = [other]
                    other.keywords = [sea]
                    album.photos?.first?.keywords = [sea]
                    try context.save()
                    context.delete(album)
                    try check.expectEqual(
                        try context.fetchCount(FetchDescriptor<ConformancePhoto>()), 1,
                        "pending-aware count after the delete")
                    try context.save()
                    let fresh = ModelContext(try check.reopen(container))
                    try check.expectEqual(
                        try fresh.fetch(FetchDescriptor<ConformancePhoto>()).map(\.caption), ["q"],
                        "photos left after cascade")
                    try check.expectEqual(
                        try fresh.fetch(FetchDescriptor<ConformanceKeyword>()).first?.photos?.map(\.caption), ["q"],
                        "keyword's photos")
                },
                ConformanceCase(
                    suite: "deleteRules", id: "DEL-02",
                    title: "cascade reaches only the deleted owner's children, loaded or not"
                ) { check in
                    let container = try check.container(for: ConformanceOwner.self)
                    let writer = ModelContext(container)
                    for name in ["a", "b"] {
                        let owner = ConformanceOwner(name: name)
                        owner.cascaded = (1...3).map { ConformanceCascaded(label: "\(name)\($0)") }
                        writer.insert(owner)
                    }
                    try writer.save()
                    let other = ModelContext(try check.reopen(container))
                    let a = try other.fetch(FetchDescriptor<ConformanceOwner>(predicate: #Predicate { $0.name == "a" }))
                    try check.expectEqual(a.count, 1, "owner a found")
                    other.delete(a[0])
                    try other.save()
                    try check.expectEqual(
                        try check.stored(ConformanceCascaded.self, in: container, key: \.label), ["b1", "b2", "b3"],
                        "children left")
                    let owners = try check.stored(ConformanceCascaded.self, in: container) {
                        "\($0.label):\($0.owner?.name ?? "-")"
                    }
                    try check.expectEqual(owners, ["b1:b", "b2:b", "b3:b"], "the children left keep their owner")
                    try check.expectEqual(
                        try check.stored(ConformanceOwner.self, in: container, key: \.name), ["b"], "owners left")
                },
                ConformanceCase(
                    suite: "deleteRules", id: "DEL-03", title: "cascade through a to-one deletes the target"
                ) { check in
                    let container = try check.container(for: ConformanceVoyage.self, ConformanceLodging.self)
                    let context = ModelContext(container)
                    let voyage = ConformanceVoyage(name: "v")
                    voyage.lodging = ConformanceLodging(place: "inn")
                    context.insert(voyage)
                    context.insert(ConformanceLodging(place: "unrelated"))
                    try context.save()
                    let other = ModelContext(try check.reopen(container))
                    for v in try other.fetch(FetchDescriptor<ConformanceVoyage>()) { other.delete(v) }
                    try other.save()
                    try check.expectEqual(
                        try check.storedCount(ConformanceVoyage.self, in: container), 0, "voyages left")
                    try check.expectEqual(
                        try check.stored(ConformanceLodging.self, in: container, key: \.place), ["unrelated"],
                        "lodgings left")
                },
                ConformanceCase(
                    suite: "deleteRules", id: "DEL-04",
                    title: "cascade is recursive: deleting the house deletes floors and rooms"
                ) { check in
                    let container = try check.container(for: ConformanceHouse.self)
                    let context = ModelContext(container)
                    let house = ConformanceHouse(name: "h")
                    for f in 0..<2 {
                        let floor = ConformanceFloor(name: "f\(f)")
                        floor.rooms = [ConformanceRoom(name: "r\(f)a"), ConformanceRoom(name: "r\(f)b")]
                        house.floors.append(floor)
                    }
                    context.insert(house)
                    try context.save()
                    try check.expectEqual(
                        try check.storedCount(ConformanceRoom.self, in: container), 4, "rooms before delete")
                    let other = ModelContext(try check.reopen(container))
                    for h in try other.fetch(FetchDescriptor<ConformanceHouse>()) { other.delete(h) }
                    try other.save()
                    try check.expectEqual(try check.storedCount(ConformanceHouse.self, in: container), 0, "houses left")
                    try check.expectEqual(try check.storedCount(ConformanceFloor.self, in: container), 0, "floors left")
                    try check.expectEqual(try check.storedCount(ConformanceRoom.self, in: container), 0, "rooms left")
                },
                ConformanceCase(
                    suite: "deleteRules", id: "DEL-05",
                    title: "a cascade stops at a nullify rule: furniture survives with floor == nil"
                ) { check in
                    let container = try check.container(for: ConformanceHouse.self)
                    let context = ModelContext(container)
                    let house = ConformanceHouse(name: "h")
                    let floor = ConformanceFloor(name: "ground")
                    let chair = ConformanceFurniture(name: "chair")
                    floor.furniture = [chair]
                    floor.rooms = [ConformanceRoom(name: "hall")]
                    house.floors = [floor]
                    context.insert(house)
                    try context.save()
                    context.delete(house)
                    try context.save()
                    try check.expect(
                        chair.floor == nil, "the registered chair lost its floor", actual: "floor still set")
                    try check.expectEqual(try check.storedCount(ConformanceFloor.self, in: container), 0, "floors left")
                    try check.expectEqual(try check.storedCount(ConformanceRoom.self, in: container), 0, "rooms left")
                    let furniture = try ModelContext(try check.reopen(container)).fetch(
                        FetchDescriptor<ConformanceFurniture>())
                    try check.expectEqual(furniture.map(\.name), ["chair"], "furniture left")
                    try check.expect(
                        furniture.first?.floor == nil, "stored chair has no floor", actual: "floor still set")
                },
                ConformanceCase(
                    suite: "deleteRules", id: "DEL-06",
                    title: "many-to-many nullify: a deleted item leaves its tags' lists only"
                ) { check in
                    let container = try check.container(for: ConformanceItem.self, ConformanceTag.self)
                    let context = ModelContext(container)
                    let sale = ConformanceTag(label: "sale")
                    let new = ConformanceTag(label: "new")
                    let a = ConformanceItem(name: "a")
                    let b = ConformanceItem(name: "b")
                    a.tags = [sale, new]
                    b.tags = [sale]
                    context.insert(a)
                    context.insert(b)
                    try context.save()
                    context.delete(a)
                    try context.save()
                    try check.expectEqual(sale.items.map(\.name), ["b"], "registered sale tag's items")
                    try check.expectEqual(new.items.map(\.name), [], "registered new tag's items")
                    let tags = try ModelContext(try check.reopen(container)).fetch(
                        FetchDescriptor<ConformanceTag>(sortBy: [SortDescriptor(\.label)]))
                    try check.expectEqual(
                        tags.map { "\($0.label):\($0.items.map(\.name).sorted())" }, ["new:[]", "sale:[\"b\"]"],
                        "stored tags and items")
                    try check.expectEqual(
                        try check.stored(ConformanceItem.self, in: container, key: \.name), ["b"], "items left")
                },
                ConformanceCase(
                    suite: "deleteRules", id: "DEL-07",
                    title: "[REC] .noAction keeps the target, which reads nil after save"
                ) { check in
                    let container = try check.container(for: ConformanceGadgetOwner.self, ConformanceGadget.self)
                    let context = ModelContext(container)
                    let owner = ConformanceGadgetOwner(name: "o")
                    let gadget = ConformanceGadget(name: "g")
                    owner.gadget = gadget
                    context.insert(owner)
                    try context.save()
                    context.delete(owner)
                    try context.save()
                    try check.expectEqual(
                        try check.storedCount(ConformanceGadget.self, in: container), 1, "gadgets left")
                    try check.expect(
                        gadget.owner == nil, "the registered gadget's owner", expected: "nil", actual: "still set")
                    let stored = try ModelContext(try check.reopen(container)).fetch(
                        FetchDescriptor<ConformanceGadget>())
                    try check.expect(
                        stored.first?.owner == nil, "the stored gadget's owner", expected: "nil", actual: "still set")
                },
                ConformanceCase(
                    suite: "deleteRules", id: "DEL-08",
                    title:
                        "[REC] .deny: save throws deleteRuleDenied, writes nothing; rollback restores; an empty owner deletes"
                ) { check in
                    let container = try check.container(for: ConformanceOwner.self)
                    let context = ModelContext(container)
                    let full = ConformanceOwner(name: "full")
                    let child = ConformanceDenied(label: "d")
                    full.denied = [child]
                    let empty = ConformanceOwner(name: "empty")
                    context.insert(full)
                    context.insert(empty)
                    try context.save()
                    context.delete(full)
                    let error = try check.expectError(SwiftDataError.deleteRuleDenied, "save of a denied delete") {
                        try context.save()
                    }
                    try check.expectEqual(error.entityName, "ConformanceOwner", "model named by the error")
                    try check.expectEqual(error.relationshipName, "denied", "relationship named by the error")
                    try check.expectEqual(
                        try check.storedCount(ConformanceOwner.self, in: container), 2,
                        "owners stored after the refused save")
                    try check.expect(
                        context.deletedModelsArray.contains { $0 === full }, "the delete stays pending",
                        actual: "not pending")
                    context.rollback()
                    try check.expectEqual(full.isDeleted, false, "isDeleted after rollback")
                    try check.expect(
                        child.owner === full, "the child keeps its owner after rollback", actual: "owner changed")
                    try check.expectEqual(
                        try context.fetchCount(FetchDescriptor<ConformanceOwner>()), 2,
                        "owners the context counts after rollback")
                    context.delete(empty)
                    try check.expectNoError("save deleting an owner with no denied children") { try context.save() }
                    try check.expectEqual(
                        try check.stored(ConformanceOwner.self, in: container, key: \.name), ["full"], "owners left")
                    try check.expectEqual(
                        try check.storedCount(ConformanceDenied.self, in: container), 1, "denied children left")
                },
                ConformanceCase(
                    suite: "deleteRules", id: "DEL-08",
                    title:
                        "[REC] .deny at processPendingChanges does not throw; the save does; deleting the children too is legal"
                ) { check in
                    let container = try check.container(for: ConformanceOwner.self)
                    let context = ModelContext(container)
                    let owner = ConformanceOwner(name: "o")
                    owner.denied = [ConformanceDenied(label: "d")]
                    context.insert(owner)
                    try context.save()
                    context.delete(owner)
                    context.processPendingChanges()
                    try check.expectEqual(
                        owner.isDeleted, true, "the owner is pending-deleted after processPendingChanges")
                    try check.expectError(SwiftDataError.deleteRuleDenied, "save after processPendingChanges") {
                        try context.save()
                    }
                    for child in owner.denied { context.delete(child) }
                    try check.expectNoError("save deleting the owner with its denied children") { try context.save() }
                    try check.expectEqual(try check.storedCount(ConformanceOwner.self, in: container), 0, "owners left")
                    try check.expectEqual(
                        try check.storedCount(ConformanceDenied.self, in: container), 0, "denied children left")
                },
                ConformanceCase(
                    suite: "deleteRules", id: "DEL-08",
                    title:
                        "[REC] .deny through a batch delete: save throws, deletes nothing; a batch of empty owners deletes"
                ) { check in
                    let container = try check.container(for: ConformanceOwner.self)
                    let context = ModelContext(container)
                    let full = ConformanceOwner(name: "full")
                    full.denied = [ConformanceDenied(label: "d")]
                    context.insert(full)
                    context.insert(ConformanceOwner(name: "empty"))
                    try context.save()
                    try context.delete(model: ConformanceOwner.self)
                    try check.expectError(SwiftDataError.deleteRuleDenied, "save of a denied batch delete") {
                        try context.save()
                    }
                    try check.expectEqual(
                        try check.storedCount(ConformanceOwner.self, in: container), 2,
                        "owners stored after the refused save")
                    try check.expectEqual(context.hasChanges, true, "the batch delete stays pending")
                    context.rollback()
                    try check.expectEqual(
                        try context.fetchCount(FetchDescriptor<ConformanceOwner>()), 2,
                        "owners the context counts after rollback")
                    try context.delete(model: ConformanceOwner.self, where: #Predicate { $0.name == "empty" })
                    try check.expectNoError("batch delete of the empty owner") { try context.save() }
                    try check.expectEqual(
                        try check.stored(ConformanceOwner.self, in: container, key: \.name), ["full"], "owners left")
                },
                ConformanceCase(
                    suite: "deleteRules", id: "DEL-09",
                    title: "deleting an unsaved insert drops it: nothing written, no changes left"
                ) { check in
                    let container = try check.container(for: ConformanceParent.self, ConformanceChild.self)
                    let context = ModelContext(container)
                    let ghost = ConformanceParent(name: "ghost")
                    context.insert(ghost)
                    context.delete(ghost)
                    try check.expect(
                        !context.insertedModelsArray.contains { $0 === ghost },
                        "not in insertedModelsArray after delete", actual: "still inserted")
                    try context.save()
                    try check.expectEqual(context.hasChanges, false, "hasChanges after save")
                    try check.expectEqual(
                        try check.storedCount(ConformanceParent.self, in: container), 0, "parents stored")
                },
                ConformanceCase(
                    suite: "deleteRules", id: "DEL-10",
                    title: "isDeleted, deletedModelsArray and modelContext before and after the save"
                ) { check in
                    let container = try check.container(for: ConformanceParent.self, ConformanceChild.self)
                    let context = ModelContext(container)
                    let parent = ConformanceParent(name: "p")
                    context.insert(parent)
                    try context.save()
                    context.delete(parent)
                    try check.expectEqual(parent.isDeleted, true, "isDeleted before save")
                    try check.expect(
                        context.deletedModelsArray.count == 1 && context.deletedModelsArray.first === parent,
                        "deletedModelsArray before save holds the model",
                        actual: "\(context.deletedModelsArray.count) models")
                    try check.expect(
                        parent.modelContext === context, "modelContext before save", actual: "not the context")
                    try check.expectEqual(
                        try check.storedCount(ConformanceParent.self, in: container), 1, "stored before save")
                    try context.save()
                    try check.expectEqual(parent.isDeleted, false, "isDeleted after save")
                    try check.expectEqual(context.deletedModelsArray.count, 0, "deletedModelsArray after save")
                    try check.expect(
                        parent.modelContext == nil, "modelContext after save", expected: "nil", actual: "a context")
                    try check.expectEqual(parent.name, "p", "reading an attribute after save")
                    try check.expectEqual(
                        try check.storedCount(ConformanceParent.self, in: container), 0, "stored after save")
                },
                ConformanceCase(
                    suite: "deleteRules", id: "DEL-10",
                    title: "a deleted child's to-one reads nil after the save; its parent's list drops it"
                ) { check in
                    let container = try check.container(for: ConformanceParent.self, ConformanceChild.self)
                    let context = ModelContext(container)
                    let parent = ConformanceParent(name: "p")
                    let kitchen = ConformanceChild(name: "kitchen")
                    let hall = ConformanceChild(name: "hall")
                    parent.children = [kitchen, hall]
                    context.insert(parent)
                    try context.save()
                    context.delete(kitchen)
                    try context.save()
                    try check.expect(
                        kitchen.parent == nil, "the deleted child's parent after save", expected: "nil",
                        actual: "still set")
                    try check.expectEqual(parent.children.map(\.name), ["hall"], "the parent's children after save")
                    try check.expectEqual(
                        try check.storedCount(ConformanceParent.self, in: container), 1, "parents stored")
                    try check.expectEqual(
                        try check.stored(ConformanceChild.self, in: container, key: \.name), ["hall"], "children stored"
                    )
                },
                ConformanceCase(suite: "deleteRules", id: "DEL-11", title: "batch delete is deferred until save") {
                    check in
                    let container = try check.container(for: ConformanceParent.self, ConformanceChild.self)
                    let context = ModelContext(container)
                    for i in 0..<3 { context.insert(ConformanceParent(name: "p\(i)")) }
                    try context.save()
                    try context.delete(model: ConformanceParent.self)
                    try check.expectEqual(
                        try ModelContext(container).fetchCount(FetchDescriptor<ConformanceParent>()), 3,
                        "count in a second context before save")
                    try check.expectEqual(
                        try context.fetchCount(FetchDescriptor<ConformanceParent>()), 0,
                        "count in the deleting context before save")
                    try context.save()
                    try check.expectEqual(
                        try check.storedCount(ConformanceParent.self, in: container), 0, "stored after save")
                },
                ConformanceCase(
                    suite: "deleteRules", id: "DEL-12",
                    title: "batch delete with a predicate deletes exactly the matching rows, registered or not"
                ) { check in
                    let container = try check.container(for: ConformanceParent.self, ConformanceChild.self)
                    let writer = ModelContext(container)
                    for name in ["ann", "bob", "amy", "Al", "cy"] { writer.insert(ConformanceParent(name: name)) }
                    try writer.save()
                    let context = ModelContext(try check.reopen(container))
                    // One of the matching models is registered before the batch delete.
                    _ = try context.fetch(
                        FetchDescriptor<ConformanceParent>(predicate: #Predicate { $0.name == "ann" }))
                    try context.delete(model: ConformanceParent.self, where: #Predicate { $0.name.starts(with: "a") })
                    try context.save()
                    try check.expectEqual(
                        try check.stored(ConformanceParent.self, in: container, key: \.name), ["Al", "bob", "cy"],
                        "parents left")
                },
                ConformanceCase(
                    suite: "deleteRules", id: "DEL-13",
                    title: "[REC] batch delete honours cascade and many-to-many nullify"
                ) { check in
                    let container = try check.container(
                        for: ConformanceHouse.self, ConformanceItem.self, ConformanceTag.self)
                    let context = ModelContext(container)
                    let house = ConformanceHouse(name: "h")
                    let floor = ConformanceFloor(name: "f")
                    floor.rooms = [ConformanceRoom(name: "a"), ConformanceRoom(name: "b")]
                    floor.furniture = [ConformanceFurniture(name: "sofa")]
                    house.floors = [floor]
                    let item = ConformanceItem(name: "x")
                    item.tags = [ConformanceTag(label: "t")]
                    context.insert(house)
                    context.insert(item)
                    try context.save()
                    let other = ModelContext(try check.reopen(container))
                    try other.delete(model: ConformanceHouse.self)
                    try other.delete(model: ConformanceTag.self)
                    try other.save()
                    try check.expectEqual(try check.storedCount(ConformanceFloor.self, in: container), 0, "floors left")
                    try check.expectEqual(try check.storedCount(ConformanceRoom.self, in: container), 0, "rooms left")
                    let furniture = try ModelContext(try check.reopen(container)).fetch(
                        FetchDescriptor<ConformanceFurniture>())
                    try check.expect(
                        furniture.count == 1 && furniture[0].floor == nil, "furniture kept with no floor",
                        actual: "\(furniture.count) pieces")
                    let items = try ModelContext(try check.reopen(container)).fetch(FetchDescriptor<ConformanceItem>())
                    try check.expect(
                        items.count == 1 && items[0].tags.isEmpty, "item kept with no tags",
                        actual: "\(items.map(\.tags.count))")
                },
                ConformanceCase(
                    suite: "deleteRules", id: "DEL-13",
                    title: "[REC] a delete that would nil a non-optional to-one throws at save; nothing deleted"
                ) { check in
                    let container = try check.container(for: ConformanceMachine.self, ConformancePart.self)
                    let context = ModelContext(container)
                    let machine = ConformanceMachine(name: "m")
                    let part = ConformancePart(name: "p", machine: machine)
                    context.insert(part)
                    try context.save()
                    let storedParts = try ModelContext(try check.reopen(container)).fetch(
                        FetchDescriptor<ConformanceMachine>()
                    ).first?.parts.map(\.name)
                    try check.expectEqual(
                        storedParts, ["p"], "the stored machine's parts (inverse of the mandatory to-one)")
                    try context.delete(model: ConformanceMachine.self)
                    context.processPendingChanges()
                    try check.expect(
                        part.machine === machine, "the part keeps its machine until the save", actual: "machine changed"
                    )
                    let error = try check.expectError(
                        SwiftDataError.modelValidationFailure,
                        "save of a batch delete leaving a mandatory to-one dangling"
                    ) {
                        try context.save()
                    }
                    try check.expectEqual(error.entityName, "ConformancePart", "model named by the error")
                    try check.expectEqual(error.relationshipName, "machine", "relationship named by the error")
                    try check.expectEqual(
                        try check.storedCount(ConformanceMachine.self, in: container), 1, "machines stored")
                    context.rollback()
                    context.delete(machine)
                    context.delete(part)
                    try check.expectNoError("deleting the part with its machine") { try context.save() }
                    try check.expectEqual(try check.storedCount(ConformancePart.self, in: container), 0, "parts left")
                    try check.expectEqual(
                        try check.storedCount(ConformanceMachine.self, in: container), 0, "machines left")
                },
                ConformanceCase(
                    suite: "deleteRules", id: "DEL-14",
                    title: "[REC] one-way relationships: a deleted target reads nil / is gone from the list"
                ) { check in
                    let container = try check.container(for: ConformanceMemo.self, ConformanceMarker.self)
                    let context = ModelContext(container)
                    let memo = ConformanceMemo(text: "m")
                    let a = ConformanceMarker(name: "a")
                    let b = ConformanceMarker(name: "b")
                    memo.label = a
                    memo.markers = [a, b]
                    context.insert(memo)
                    try context.save()
                    context.delete(a)
                    try context.save()
                    try check.expect(memo.label == nil, "registered memo's label", expected: "nil", actual: "still set")
                    try check.expectEqual(memo.markers.map(\.name), ["b"], "registered memo's markers")
                    let stored = try ModelContext(try check.reopen(container)).fetch(FetchDescriptor<ConformanceMemo>())
                    try check.expect(
                        stored.first?.label == nil, "stored memo's label", expected: "nil", actual: "still set")
                    try check.expectEqual(stored.first?.markers.map(\.name), ["b"], "stored memo's markers")
                },
                ConformanceCase(
                    suite: "deleteRules", id: "DEL-14",
                    title: "[REC] one-way: an unsaved target deleted before the save is not written and reads nil"
                ) { check in
                    let container = try check.container(for: ConformanceMemo.self, ConformanceMarker.self)
                    let context = ModelContext(container)
                    let memo = ConformanceMemo(text: "m")
                    context.insert(memo)
                    try context.save()
                    let a = ConformanceMarker(name: "a")
                    context.insert(a)
                    memo.label = a
                    memo.markers = [a]
                    context.delete(a)
                    try check.expect(
                        memo.label == nil, "memo's label before the save", expected: "nil", actual: "still set")
                    try context.save()
                    try check.expectEqual(memo.markers.map(\.name), [], "registered memo's markers")
                    let reopened = ModelContext(try check.reopen(container))
                    try check.expectEqual(
                        try reopened.fetchCount(FetchDescriptor<ConformanceMarker>()), 0, "stored markers")
                    let stored = try reopened.fetch(FetchDescriptor<ConformanceMemo>())
                    try check.expect(
                        stored.first?.label == nil, "stored memo's label", expected: "nil", actual: "still set")
                    try check.expectEqual(stored.first?.markers.map(\.name), [], "stored memo's markers")
                },
                ConformanceCase(
                    suite: "deleteRules", id: "DEL-14",
                    title: "[REC] one-way: a target deleted by another context reads nil in a fresh fetch"
                ) { check in
                    let container = try check.container(for: ConformanceMemo.self, ConformanceMarker.self)
                    let context = ModelContext(container)
                    let memo = ConformanceMemo(text: "m")
                    memo.label = ConformanceMarker(name: "a")
                    context.insert(memo)
                    try context.save()
                    let other = ModelContext(try check.reopen(container))
                    for marker in try other.fetch(FetchDescriptor<ConformanceMarker>()) { other.delete(marker) }
                    try other.save()
                    let stored = try ModelContext(try check.reopen(container)).fetch(FetchDescriptor<ConformanceMemo>())
                    try check.expectEqual(stored.count, 1, "memos")
                    try check.expect(
                        stored.first?.label == nil, "stored memo's label", expected: "nil", actual: "still set")
                },
                ConformanceCase(suite: "deleteRules", id: "DEL-15", title: "rollback undoes a pending cascade") {
                    check in
                    let container = try check.container(for: ConformanceHouse.self)
                    let context = ModelContext(container)
                    let house = ConformanceHouse(name: "h")
                    let floor = ConformanceFloor(name: "f")
                    let room = ConformanceRoom(name: "r")
                    floor.rooms = [room]
                    house.floors = [floor]
                    context.insert(house)
                    try context.save()
                    context.delete(house)
                    context.processPendingChanges()
                    try check.expectEqual(room.isDeleted, true, "room deleted by the cascade before save")
                    context.rollback()
                    try check.expectEqual(context.hasChanges, false, "hasChanges after rollback")
                    try check.expect(
                        !house.isDeleted && !floor.isDeleted && !room.isDeleted, "nothing deleted after rollback",
                        actual: "a model is deleted")
                    try check.expect(
                        room.floor === floor && floor.house === house, "links restored", actual: "a link is gone")
                    try context.save()
                    try check.expectEqual(
                        try check.storedCount(ConformanceHouse.self, in: container), 1, "houses stored")
                    try check.expectEqual(try check.storedCount(ConformanceRoom.self, in: container), 1, "rooms stored")
                },
            ])
    }
}
