import Foundation
import OpenSwiftData

extension ConformanceSuite {
    /// Uniqueness upserts: `@Attribute(.unique)` and `#Unique` collisions update the stored row.
    public static var uniqueness: ConformanceSuite {
        ConformanceSuite(
            name: "uniqueness", title: "unique attributes and #Unique upsert at save",
            cases: [
                ConformanceCase(
                    suite: "uniqueness", id: "UNQ-01", title: "the schema lists each uniqueness group as declared"
                ) { check in
                    let container = try check.container(
                        for: ConformanceContact.self, ConformanceAccount.self, ConformancePair.self)
                    for (type, expected) in [
                        (
                            ConformanceContact.self as any PersistentModel.Type,
                            [["code"], ["givenName", "familyName"]]
                        ),
                        (ConformanceAccount.self, [["handle"]]),
                        (ConformancePair.self, [["first", "second"]]),
                    ] {
                        let name = String(describing: type)
                        try check.within("entity=\(name)") {
                            let entity = container.schema.entitiesByName[name]
                            try check.expect(entity != nil, "the container's schema has the entity", actual: "missing")
                            try check.expectEqual(
                                entity?.uniquenessConstraints ?? [], expected, "uniquenessConstraints")
                        }
                    }
                    try check.expectEqual(
                        container.schema.entitiesByName["ConformanceAccount"]?.attributes
                            .filter(\.isUnique).map(\.name) ?? [], ["handle"], "attributes marked unique")
                },
                ConformanceCase(
                    suite: "uniqueness", id: "UNQ-10", title: "a duplicate unique value updates the stored row"
                ) { check in
                    let container = try check.container(for: ConformanceAccount.self)
                    let context = ModelContext(container)
                    context.insert(ConformanceAccount(handle: "1234", balance: 1000))
                    try context.save()
                    context.insert(ConformanceAccount(handle: "1234", balance: 0))
                    try context.save()
                    let fresh = ModelContext(try check.reopen(container))
                    let rows = try fresh.fetch(FetchDescriptor<ConformanceAccount>())
                    try check.expectEqual(rows.count, 1, "rows with handle 1234 after the second save")
                    try check.expectEqual(rows.first?.balance, 0, "balance after the upsert")
                },
                ConformanceCase(
                    suite: "uniqueness", id: "UNQ-10",
                    title: "the tutorial User: re-inserting a user with the same UUID id updates its name and date"
                ) { check in
                    let container = try check.container(for: ConformanceUser.self)
                    let context = ModelContext(container)
                    let id = UUID(uuidString: "00000000-0000-0000-0000-0000000000AD")!
                    let day = { (n: Double) in Date(timeIntervalSinceReferenceDate: n * 86_400) }
                    context.insert(ConformanceUser(id: id, name: "Ada", joined: day(1)))
                    context.insert(
                        ConformanceUser(
                            id: UUID(uuidString: "00000000-0000-0000-0000-0000000000B0")!, name: "Bob", joined: day(1)))
                    try context.save()
                    context.insert(ConformanceUser(id: id, name: "Ada Lovelace", joined: day(2)))
                    try context.save()
                    let users = try ModelContext(try check.reopen(container)).fetch(
                        FetchDescriptor<ConformanceUser>(sortBy: [SortDescriptor(\.name)]))
                    try check.expectEqual(users.map(\.name), ["Ada Lovelace", "Bob"], "stored users")
                    try check.expectEqual(users.first?.id, id, "the upserted user's id")
                    try check.expectEqual(users.first?.joined, day(2), "the upserted user's joining date")
                },
                ConformanceCase(
                    suite: "uniqueness", id: "UNQ-11",
                    title: "the upserted row keeps its identifier; the new instance takes it"
                ) { check in
                    let container = try check.container(for: ConformanceAccount.self)
                    let context = ModelContext(container)
                    let first = ConformanceAccount(handle: "k", balance: 1)
                    context.insert(first)
                    try context.save()
                    let idA = first.persistentModelID
                    let second = ConformanceAccount(handle: "k", balance: 2)
                    context.insert(second)
                    try context.save()
                    try check.expectEqual(
                        second.persistentModelID, idA, "the inserted instance's identifier after save")
                    try check.expectEqual(second.persistentModelID.isTemporary, false, "isTemporary after save")
                    let rows = try ModelContext(try check.reopen(container)).fetch(
                        FetchDescriptor<ConformanceAccount>())
                    try check.expectEqual(rows.map(\.persistentModelID), [idA], "identifiers of the stored rows")
                    try check.expectEqual(rows.map(\.balance), [2], "stored balance")
                    // One row, one storage: a change through the new instance reads through the first one.
                    second.balance = 7
                    try check.expectEqual(first.balance, 7, "the first instance after a change through the second")
                    try context.save()
                    let after = try ModelContext(try check.reopen(container)).fetch(
                        FetchDescriptor<ConformanceAccount>())
                    try check.expectEqual(
                        after.map { "\($0.persistentModelID == idA) \($0.balance)" }, ["true 7"],
                        "the stored row after that change")
                },
                ConformanceCase(
                    suite: "uniqueness", id: "UNQ-12",
                    title: "an instance registered in the saving context shows the upserted values"
                ) { check in
                    let container = try check.container(for: ConformanceAccount.self)
                    let context = ModelContext(container)
                    let first = ConformanceAccount(handle: "k", balance: 1000)
                    context.insert(first)
                    try context.save()
                    context.insert(ConformanceAccount(handle: "k", balance: 0))
                    try context.save()
                    try check.expectEqual(first.balance, 0, "balance of the already-registered instance")
                    try check.expectEqual(
                        try context.fetchCount(FetchDescriptor<ConformanceAccount>()), 1,
                        "rows seen by the saving context")
                },
                ConformanceCase(
                    suite: "uniqueness", id: "UNQ-13", title: "[REC] an upsert overwrites every attribute, nil included"
                ) { check in
                    let container = try check.container(for: ConformanceAccount.self)
                    let context = ModelContext(container)
                    context.insert(ConformanceAccount(handle: "k", balance: 5, email: "x@example.com"))
                    try context.save()
                    context.insert(ConformanceAccount(handle: "k", balance: 6, email: nil))
                    try context.save()
                    let rows = try ModelContext(try check.reopen(container)).fetch(
                        FetchDescriptor<ConformanceAccount>())
                    try check.expectEqual(rows.count, 1, "rows after the upsert")
                    try check.expectEqual(rows.first?.email, String?.none, "email after an upsert with nil")
                    try check.expectEqual(rows.first?.balance, 6, "balance after the upsert")
                },
                ConformanceCase(
                    suite: "uniqueness", id: "UNQ-14",
                    title: "[REC] an upsert replaces the to-many; detached children survive unparented"
                ) { check in
                    let container = try check.container(for: ConformanceFolder.self, ConformanceFile.self)
                    let context = ModelContext(container)
                    let first = ConformanceFolder(key: "k")
                    first.files = [ConformanceFile(name: "c1")]
                    context.insert(first)
                    try context.save()
                    let second = ConformanceFolder(key: "k")
                    second.files = [ConformanceFile(name: "c2")]
                    context.insert(second)
                    try context.save()
                    let fresh = ModelContext(try check.reopen(container))
                    let folders = try fresh.fetch(FetchDescriptor<ConformanceFolder>())
                    try check.expectEqual(folders.count, 1, "folders after the upsert")
                    try check.expectEqual(folders.first?.files.map(\.name), ["c2"], "files of the upserted folder")
                    let files = try fresh.fetch(FetchDescriptor<ConformanceFile>(sortBy: [SortDescriptor(\.name)]))
                    try check.expectEqual(files.map(\.name), ["c1", "c2"], "files kept")
                    try check.expect(
                        files.first?.folder == nil, "the detached file has no folder", actual: "c1.folder is set")
                },
                ConformanceCase(
                    suite: "uniqueness", id: "UNQ-15",
                    title: "a collision on a second constraint overwrites that row, other keys included"
                ) { check in
                    let container = try check.container(for: ConformanceContact.self)
                    let context = ModelContext(container)
                    context.insert(ConformanceContact(code: 1, givenName: "Ada", familyName: "Lovelace", phone: "old"))
                    try context.save()
                    context.insert(ConformanceContact(code: 2, givenName: "Ada", familyName: "Lovelace", phone: "new"))
                    try context.save()
                    let rows = try ModelContext(try check.reopen(container)).fetch(
                        FetchDescriptor<ConformanceContact>())
                    try check.expectEqual(
                        rows.map { "\($0.code) \($0.phone)" }, ["2 new"], "the single row after the upsert")
                    let one = try ModelContext(try check.reopen(container)).fetchCount(
                        FetchDescriptor(predicate: #Predicate<ConformanceContact> { $0.code == 1 }))
                    try check.expectEqual(one, 0, "rows still having code 1")
                },
                ConformanceCase(
                    suite: "uniqueness", id: "UNQ-16",
                    title: "a compound #Unique collides only when the whole group matches"
                ) { check in
                    let container = try check.container(for: ConformancePair.self)
                    let context = ModelContext(container)
                    context.insert(ConformancePair(first: "Launch", second: 1, value: 1))
                    try context.save()
                    context.insert(ConformancePair(first: "Launch", second: 2, value: 2))
                    context.insert(ConformancePair(first: "Other", second: 1, value: 3))
                    try context.save()
                    try check.expectEqual(
                        try check.storedCount(ConformancePair.self, in: container), 3, "rows after partial matches")
                    context.insert(ConformancePair(first: "Launch", second: 1, value: 9))
                    try context.save()
                    let rows = try ModelContext(try check.reopen(container)).fetch(
                        FetchDescriptor<ConformancePair>(sortBy: [SortDescriptor(\.first), SortDescriptor(\.second)]))
                    try check.expectEqual(
                        rows.map { "\($0.first)/\($0.second)=\($0.value)" },
                        ["Launch/1=9.0", "Launch/2=2.0", "Other/1=3.0"], "rows after the full-group collision")
                },
                ConformanceCase(
                    suite: "uniqueness", id: "UNQ-17", title: "each #Unique group triggers an upsert on its own"
                ) { check in
                    let container = try check.container(for: ConformanceContact.self)
                    let context = ModelContext(container)
                    context.insert(ConformanceContact(code: 1, givenName: "Ada", familyName: "Lovelace", phone: "a"))
                    context.insert(ConformanceContact(code: 2, givenName: "Alan", familyName: "Turing", phone: "b"))
                    try context.save()
                    // Collides on the code only: that row takes the new names.
                    context.insert(ConformanceContact(code: 1, givenName: "Augusta", familyName: "King", phone: "c"))
                    try context.save()
                    // Collides on the names only: that row takes the new code.
                    context.insert(ConformanceContact(code: 7, givenName: "Alan", familyName: "Turing", phone: "d"))
                    try context.save()
                    let rows = try ModelContext(try check.reopen(container)).fetch(
                        FetchDescriptor<ConformanceContact>(sortBy: [SortDescriptor(\.code)]))
                    try check.expectEqual(
                        rows.map { "\($0.code) \($0.givenName) \($0.familyName) \($0.phone)" },
                        ["1 Augusta King c", "7 Alan Turing d"], "rows after one collision per group")
                },
                ConformanceCase(
                    suite: "uniqueness", id: "UNQ-18",
                    title: "[REC] colliding with two different rows throws, writes nothing, keeps the insert pending"
                ) { check in
                    let container = try check.container(for: ConformanceContact.self)
                    let context = ModelContext(container)
                    context.insert(ConformanceContact(code: 1, givenName: "A", familyName: "A", phone: "a"))
                    context.insert(ConformanceContact(code: 2, givenName: "B", familyName: "B", phone: "b"))
                    try context.save()
                    context.insert(ConformanceContact(code: 1, givenName: "B", familyName: "B", phone: "c"))
                    try check.expectError(SwiftDataError.uniqueConstraintViolation, "save of a double collision") {
                        try context.save()
                    }
                    try check.expectEqual(context.insertedModelsArray.count, 1, "pending inserts after the failed save")
                    try check.expectEqual(context.hasChanges, true, "hasChanges after the failed save")
                    let rows = try ModelContext(try check.reopen(container)).fetch(
                        FetchDescriptor<ConformanceContact>(sortBy: [SortDescriptor(\.code)]))
                    try check.expectEqual(rows.map(\.phone), ["a", "b"], "stored rows after the failed save")
                    context.rollback()
                    try check.expectEqual(context.hasChanges, false, "hasChanges after rollback")
                    try context.save()
                    try check.expectEqual(
                        try check.storedCount(ConformanceContact.self, in: container), 2, "rows after rollback and save"
                    )
                },
                ConformanceCase(suite: "uniqueness", id: "UNQ-19", title: "[REC] nil unique values never collide") {
                    check in
                    let container = try check.container(for: ConformanceBadge.self)
                    let context = ModelContext(container)
                    context.insert(ConformanceBadge(code: nil, holder: "x"))
                    context.insert(ConformanceBadge(code: nil, holder: "y"))
                    context.insert(ConformanceBadge(code: "A", holder: "a"))
                    try context.save()
                    context.insert(ConformanceBadge(code: nil, holder: "z"))
                    context.insert(ConformanceBadge(code: "A", holder: "b"))
                    try context.save()
                    let holders = try check.stored(ConformanceBadge.self, in: container) {
                        "\($0.code ?? "nil"):\($0.holder)"
                    }
                    try check.expectEqual(holders, ["A:b", "nil:x", "nil:y", "nil:z"], "stored badges")
                },
                ConformanceCase(
                    suite: "uniqueness", id: "UNQ-20",
                    title: "the upsert happens at save: before it the pending duplicate is fetched too"
                ) { check in
                    let container = try check.container(for: ConformanceAccount.self)
                    let context = ModelContext(container)
                    context.insert(ConformanceAccount(handle: "k", balance: 1))
                    try context.save()
                    context.insert(ConformanceAccount(handle: "k", balance: 2))
                    try check.expectEqual(
                        try context.fetch(FetchDescriptor<ConformanceAccount>()).count, 2,
                        "fetch with the pending duplicate")
                    try check.expectEqual(
                        try check.storedCount(ConformanceAccount.self, in: container), 1, "stored rows before save")
                    try context.save()
                    try check.expectEqual(
                        try context.fetch(FetchDescriptor<ConformanceAccount>()).map(\.balance), [2], "fetch after save"
                    )
                    try check.expectEqual(
                        try check.storedCount(ConformanceAccount.self, in: container), 1, "stored rows after save")
                },
                ConformanceCase(
                    suite: "uniqueness", id: "UNQ-21",
                    title: "#Unique on a to-one: a second model for the same target upserts; nil never collides"
                ) { check in
                    let container = try check.container(for: ConformancePassport.self, ConformanceCitizen.self)
                    let context = ModelContext(container)
                    let ada = ConformanceCitizen(name: "ada")
                    let bob = ConformanceCitizen(name: "bob")
                    context.insert(ConformancePassport(number: "A1", holder: ada))
                    context.insert(ConformancePassport(number: "B1", holder: bob))
                    context.insert(ConformancePassport(number: "N1", holder: nil))
                    context.insert(ConformancePassport(number: "N2", holder: nil))
                    try context.save()
                    context.insert(ConformancePassport(number: "A2", holder: ada))
                    try context.save()
                    let passports = try ModelContext(try check.reopen(container)).fetch(
                        FetchDescriptor<ConformancePassport>(sortBy: [SortDescriptor(\.number)]))
                    try check.expectEqual(passports.map(\.number), ["A2", "B1", "N1", "N2"], "stored passport numbers")
                    try check.expectEqual(passports.first?.holder?.name, "ada", "holder of the upserted passport")
                    try check.expectEqual(try check.storedCount(ConformanceCitizen.self, in: container), 2, "citizens")
                },
                ConformanceCase(
                    suite: "uniqueness", id: "UNQ-30",
                    title: "[REC] colliding pending inserts collapse at save: last insert wins, one identifier"
                ) { check in
                    let container = try check.container(for: ConformanceAccount.self)
                    let context = ModelContext(container)
                    let a = ConformanceAccount(handle: "k", balance: 1, email: "first")
                    let b = ConformanceAccount(handle: "k", balance: 2, email: "second")
                    context.insert(a)
                    context.insert(b)
                    try check.expectNoError("save of two colliding pending inserts") { try context.save() }
                    let rows = try ModelContext(try check.reopen(container)).fetch(
                        FetchDescriptor<ConformanceAccount>())
                    try check.expectEqual(rows.map(\.email), ["second"], "stored emails")
                    try check.expectEqual(a.persistentModelID, b.persistentModelID, "identifiers of the two instances")
                    try check.expectEqual(a.email, "second", "the first instance shows the winning values")
                },
                ConformanceCase(
                    suite: "uniqueness", id: "UNQ-31",
                    title: "insert, save, insert the same key, save, repeatedly: one row, latest values"
                ) { check in
                    let container = try check.container(for: ConformanceAccount.self)
                    let context = ModelContext(container)
                    for round in 1...4 {
                        try check.within("round=\(round)") {
                            context.insert(ConformanceAccount(handle: "k", balance: round))
                            try context.save()
                            let rows = try ModelContext(try check.reopen(container)).fetch(
                                FetchDescriptor<ConformanceAccount>())
                            try check.expectEqual(rows.map(\.balance), [round], "stored balances")
                        }
                    }
                },
                ConformanceCase(
                    suite: "uniqueness", id: "UNQ-32",
                    title: "two contexts insert the same key and save in turn: one row, second save wins"
                ) { check in
                    let container = try check.container(for: ConformanceAccount.self)
                    let one = ModelContext(container)
                    let two = ModelContext(container)
                    one.insert(ConformanceAccount(handle: "k", balance: 1))
                    two.insert(ConformanceAccount(handle: "k", balance: 2))
                    try one.save()
                    try two.save()
                    let rows = try ModelContext(try check.reopen(container)).fetch(
                        FetchDescriptor<ConformanceAccount>())
                    try check.expectEqual(rows.map(\.balance), [2], "stored balances")
                },
                ConformanceCase(
                    suite: "uniqueness", id: "UNQ-33",
                    title: "[REC] values handed over in one save: a swap, and an insert onto a value left"
                ) { check in
                    let container = try check.container(for: ConformanceBadge.self)
                    let context = ModelContext(container)
                    let a = ConformanceBadge(code: "A", holder: "a")
                    let b = ConformanceBadge(code: "B", holder: "b")
                    context.insert(a)
                    context.insert(b)
                    try context.save()
                    (a.code, b.code) = ("B", "A")
                    try context.save()
                    a.code = "C"
                    context.insert(ConformanceBadge(code: "B", holder: "n"))
                    try context.save()
                    let holders = try check.stored(ConformanceBadge.self, in: container) {
                        "\($0.code ?? "nil"):\($0.holder)"
                    }
                    try check.expectEqual(holders, ["A:b", "B:n", "C:a"], "stored badges")
                },
                ConformanceCase(
                    suite: "uniqueness", id: "UNQ-40",
                    title: "[REC] a unique attribute of the base: the same subclass upserts"
                ) { check in
                    let container = try check.container(
                        for: ConformanceTour.self, ConformanceCityTour.self, ConformanceBoatTour.self)
                    let context = ModelContext(container)
                    context.insert(ConformanceCityTour(name: "x", price: 10, city: "Rome"))
                    context.insert(ConformanceBoatTour(name: "y", price: 5, boat: "Ark"))
                    try context.save()
                    context.insert(ConformanceCityTour(name: "x", price: 20, city: "Oslo"))
                    try context.save()
                    let tours = try ModelContext(try check.reopen(container)).fetch(
                        FetchDescriptor<ConformanceTour>(sortBy: [SortDescriptor(\.name)]))
                    try check.expectEqual(tours.count, 2, "tours after the upsert")
                    try check.expectEqual(
                        (tours.first as? ConformanceCityTour)?.city, "Oslo", "city of the upserted tour")
                    try check.expectEqual(tours.first?.price, 20, "price of the upserted tour")
                },
                ConformanceCase(
                    suite: "uniqueness", id: "UNQ-41",
                    title: "[REC] an upsert that would change a row's class throws; store unchanged"
                ) { check in
                    let container = try check.container(
                        for: ConformanceTour.self, ConformanceCityTour.self, ConformanceBoatTour.self)
                    let context = ModelContext(container)
                    context.insert(ConformanceCityTour(name: "x", price: 10, city: "Rome"))
                    try context.save()
                    context.insert(ConformanceBoatTour(name: "x", price: 20, boat: "Ark"))
                    try check.expectError(SwiftDataError.uniqueConstraintViolation, "save of a cross-class collision") {
                        try context.save()
                    }
                    let tours = try ModelContext(try check.reopen(container)).fetch(FetchDescriptor<ConformanceTour>())
                    try check.expectEqual(
                        tours.map { String(describing: type(of: $0)) }, ["ConformanceCityTour"], "stored tour classes")
                    try check.expectEqual(tours.map(\.price), [10], "stored prices")
                    try check.expectEqual(context.hasChanges, true, "the refused insert stays pending")
                    context.rollback()
                    try check.expectNoError("save after rollback") { try context.save() }
                },
            ])
    }
}
