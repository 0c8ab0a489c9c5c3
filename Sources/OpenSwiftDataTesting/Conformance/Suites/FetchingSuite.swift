import Foundation
import OpenSwiftData

extension ConformanceSuite {
    /// Fetching: sort, offset, limit and `fetchCount`.
    public static var fetching: ConformanceSuite {
        ConformanceSuite(
            name: "fetching", title: "fetch, fetchCount, sort, limit and offset",
            cases: [
                ConformanceCase(
                    suite: "fetching", id: "FET-01", title: "sort, offset 3, limit 4 returns the 4th to 7th rows"
                ) { check in
                    let context = ModelContext(try check.container(for: ConformanceRecord.self))
                    for n in (1...10).reversed() { context.insert(ConformanceRecord(name: "r\(n)", number: n)) }
                    try context.save()
                    var descriptor = FetchDescriptor<ConformanceRecord>(sortBy: [SortDescriptor(\.number)])
                    descriptor.fetchOffset = 3
                    descriptor.fetchLimit = 4
                    try check.expectEqual(
                        try context.fetch(descriptor).map(\.number), [4, 5, 6, 7], "numbers of the page")
                },
                ConformanceCase(
                    suite: "fetching", id: "FET-01",
                    title: "every offset and limit on a stored table gives the matching slice of the sorted rows"
                ) { check in
                    let context = try numbered(check, 1...10)
                    let sorted = Array(1...10)
                    for offset in [0, 1, 5, 9] {
                        for limit in [1, 3, 10] {
                            try check.within("offset=\(offset) limit=\(limit)") {
                                var d = FetchDescriptor<ConformanceRecord>(sortBy: [SortDescriptor(\.number)])
                                d.fetchOffset = offset
                                d.fetchLimit = limit
                                try check.expectEqual(
                                    try context.fetch(d).map(\.number), Array(sorted.dropFirst(offset).prefix(limit)),
                                    "page")
                            }
                        }
                    }
                },
                ConformanceCase(
                    suite: "fetching", id: "FET-02",
                    title:
                        "an offset at or past the end gives nothing; fetchLimit 0 means no limit; an empty store gives nothing"
                ) { check in
                    let context = try numbered(check, 1...10)
                    var d = FetchDescriptor<ConformanceRecord>(sortBy: [SortDescriptor(\.number)])
                    for offset in [10, 11, 50] {
                        try check.within("offset=\(offset)") {
                            d.fetchOffset = offset
                            try check.expectEqual(try context.fetch(d).count, 0, "rows past the end")
                            try check.expectEqual(try context.fetchCount(d), 0, "count past the end")
                        }
                    }
                    d.fetchOffset = nil
                    d.fetchLimit = 0
                    try check.expectEqual(try context.fetch(d).map(\.number), Array(1...10), "fetchLimit 0")
                    d.fetchOffset = 7
                    try check.expectEqual(try context.fetch(d).map(\.number), [8, 9, 10], "fetchLimit 0 with offset 7")
                    let empty = ModelContext(try check.container(for: ConformanceRecord.self))
                    try check.expectEqual(
                        try empty.fetch(FetchDescriptor<ConformanceRecord>()).count, 0, "fetch on an empty store")
                    try check.expectEqual(
                        try empty.fetchCount(FetchDescriptor<ConformanceRecord>()), 0, "fetchCount on an empty store")
                },
                ConformanceCase(
                    suite: "fetching", id: "FET-03",
                    title: "[REC] fetchCount honours predicate, offset and limit: it always equals fetch().count"
                ) { check in
                    let context = try numbered(check, 1...10)
                    try check.expectEqual(
                        try context.fetchCount(FetchDescriptor<ConformanceRecord>()), 10, "count of all")
                    var d = FetchDescriptor<ConformanceRecord>(predicate: #Predicate { $0.number > 2 })
                    try check.expectEqual(try context.fetchCount(d), 8, "count of number > 2")
                    d.fetchOffset = 3
                    try check.expectEqual(try context.fetchCount(d), 5, "with offset 3")
                    d.fetchLimit = 4
                    try check.expectEqual(try context.fetchCount(d), 4, "with offset 3, limit 4")
                    d.fetchOffset = 20
                    try check.expectEqual(try context.fetchCount(d), 0, "with offset 20")
                    try check.expectEqual(
                        try context.fetchCount(
                            FetchDescriptor<ConformanceRecord>(predicate: #Predicate { $0.number > 100 })), 0,
                        "count of a predicate nothing matches")
                    for offset in [0, 5, 9, 10] {
                        for limit in [nil, 0, 1, 3] as [Int?] {
                            try check.within("offset=\(offset) limit=\(limit.map(String.init) ?? "nil")") {
                                var p = FetchDescriptor<ConformanceRecord>(
                                    predicate: #Predicate { $0.number % 2 == 0 || $0.number > 7 },
                                    sortBy: [SortDescriptor(\.number)])
                                p.fetchOffset = offset
                                p.fetchLimit = limit
                                try check.expectEqual(
                                    try context.fetchCount(p), try context.fetch(p).count, "fetchCount vs fetch().count"
                                )
                            }
                        }
                    }
                },
                ConformanceCase(
                    suite: "fetching", id: "FET-04",
                    title: "two sort keys: the first is primary, the second breaks ties in its own order"
                ) { check in
                    let container = try check.container(for: ConformanceRecord.self)
                    let writer = ModelContext(container)
                    for (name, number) in [("Smith", 30), ("Jones", 40), ("Smith", 20), ("Adams", 50), ("Jones", 60)] {
                        writer.insert(ConformanceRecord(name: name, number: number))
                    }
                    try writer.save()
                    let context = ModelContext(try check.reopen(container))
                    let sorts = [
                        SortDescriptor(\ConformanceRecord.name),
                        SortDescriptor(\ConformanceRecord.number, order: .reverse),
                    ]
                    let rows = try context.fetch(FetchDescriptor<ConformanceRecord>(sortBy: sorts))
                    try check.expectEqual(
                        rows.map { "\($0.name) \($0.number)" },
                        ["Adams 50", "Jones 60", "Jones 40", "Smith 30", "Smith 20"], "sorted rows")
                    try check.expectEqual(
                        rows.map(\.number), rows.sorted(using: sorts, stringSortStyle: .natural).map(\.number),
                        "same order as sorted(using:stringSortStyle:) with the default style")
                    let byNumber = try context.fetch(
                        FetchDescriptor<ConformanceRecord>(sortBy: [SortDescriptor(\.number, order: .reverse)]))
                    try check.expectEqual(byNumber.map(\.number), [60, 50, 40, 30, 20], "numbers descending")
                },
                ConformanceCase(
                    suite: "fetching", id: "FET-04",
                    title: "sorting by a transient or computed property throws unsupportedSortDescriptor"
                ) { check in
                    let context = ModelContext(try check.container(for: ConformanceBook.self))
                    context.insert(
                        ConformanceBook(
                            code: UUID(uuidString: "00000000-0000-0000-0000-000000000001")!, title: "a", pages: 1,
                            price: 1))
                    try context.save()
                    try check.expectError(SwiftDataError.unsupportedSortDescriptor, "sort by a computed property") {
                        try context.fetch(FetchDescriptor<ConformanceBook>(sortBy: [SortDescriptor(\.shoutedTitle)]))
                    }
                    try check.expectError(SwiftDataError.unsupportedSortDescriptor, "sort by a transient property") {
                        try context.fetch(FetchDescriptor<ConformanceBook>(sortBy: [SortDescriptor(\.scratch)]))
                    }
                },
                ConformanceCase(
                    suite: "fetching", id: "FET-04",
                    title: "sorting through an optional to-one key path orders as sorted(using:), nil first"
                ) { check in
                    let container = try check.container(for: ConformanceParent.self, ConformanceChild.self)
                    let writer = ModelContext(container)
                    let b = ConformanceParent(name: "b")
                    let a = ConformanceParent(name: "a")
                    for (name, parent) in [("c1", b), ("c2", a), ("c3", nil), ("c4", b), ("c5", a)]
                        as [(String, ConformanceParent?)]
                    {
                        let child = ConformanceChild(name: name)
                        writer.insert(child)
                        child.parent = parent
                    }
                    try writer.save()
                    let context = ModelContext(try check.reopen(container))
                    let all = try context.fetch(FetchDescriptor<ConformanceChild>())
                    for order in [SortOrder.forward, .reverse] {
                        try check.within("order=\(order == .forward ? "forward" : "reverse")") {
                            let sort = [
                                SortDescriptor(\ConformanceChild.parent?.name, order: order),
                                SortDescriptor(\ConformanceChild.name),
                            ]
                            try check.expectEqual(
                                try context.fetch(FetchDescriptor(sortBy: sort)).map(\.name),
                                all.sorted(using: sort, stringSortStyle: .natural).map(\.name),
                                "fetch vs sorted(using:stringSortStyle:)")
                        }
                    }
                    let forward = try context.fetch(
                        FetchDescriptor(sortBy: [
                            SortDescriptor(\ConformanceChild.parent?.name), SortDescriptor(\ConformanceChild.name),
                        ]))
                    try check.expectEqual(
                        forward.map(\.name), ["c3", "c2", "c5", "c1", "c4"], "children by parent name, then name")
                },
                ConformanceCase(
                    suite: "fetching", id: "FET-05",
                    title: "nil sorts first ascending and last descending, like sorted(using:)"
                ) { check in
                    let container = try check.container(for: ConformanceRecord.self)
                    let writer = ModelContext(container)
                    writer.insert(ConformanceRecord(name: "two", number: 1, note: "b", rank: 2))
                    writer.insert(ConformanceRecord(name: "none", number: 2, note: nil, rank: nil))
                    writer.insert(ConformanceRecord(name: "one", number: 3, note: "a", rank: 1))
                    try writer.save()
                    let context = ModelContext(try check.reopen(container))
                    let forward = try context.fetch(
                        FetchDescriptor<ConformanceRecord>(sortBy: [SortDescriptor(\.rank)]))
                    try check.expectEqual(forward.map(\.name), ["none", "one", "two"], "rank ascending")
                    let reverse = try context.fetch(
                        FetchDescriptor<ConformanceRecord>(sortBy: [SortDescriptor(\.rank, order: .reverse)]))
                    try check.expectEqual(reverse.map(\.name), ["two", "one", "none"], "rank descending")
                    let byNote = try context.fetch(FetchDescriptor<ConformanceRecord>(sortBy: [SortDescriptor(\.note)]))
                    try check.expectEqual(byNote.map(\.name), ["none", "one", "two"], "note ascending")
                    let all = try context.fetch(FetchDescriptor<ConformanceRecord>())
                    try check.expectEqual(
                        forward.map(\.name), all.sorted(using: [SortDescriptor(\ConformanceRecord.rank)]).map(\.name),
                        "same as sorted(using:)")
                },
                ConformanceCase(
                    suite: "fetching", id: "FET-06",
                    title:
                        "strings sort Finder-like by default (\"2\" < \"10\", \"a\" < \"B\"), as Swift < with .lexical"
                ) { check in
                    let container = try check.container(for: ConformanceRecord.self)
                    let writer = ModelContext(container)
                    let raw = ["b", "B", "a", "10", "2", "é", "e\u{301}z", "z", "Z", "😀", ""]
                    for (i, name) in raw.enumerated() { writer.insert(ConformanceRecord(name: name, number: i)) }
                    try writer.save()
                    let context = ModelContext(try check.reopen(container))
                    let expected = raw.sorted()
                    try check.expectEqual(
                        Array(expected.prefix(7)), ["", "10", "2", "B", "Z", "a", "b"], "Swift's own order")
                    let natural = raw.sorted(using: NaturalStringComparator())
                    try check.expectEqual(
                        Array(natural.prefix(6)), ["", "2", "10", "a", "B", "b"], "the natural order")
                    try check.expectEqual(
                        try context.fetch(FetchDescriptor<ConformanceRecord>(sortBy: [SortDescriptor(\.name)])).map(
                            \.name),
                        natural, "default comparator (localizedStandard on Apple platforms)")
                    try check.expectEqual(
                        try context.fetch(
                            FetchDescriptor<ConformanceRecord>(sortBy: [SortDescriptor(\.name, comparator: .lexical)])
                        ).map(\.name),
                        expected, ".lexical")
                    try check.expectEqual(
                        try context.fetch(
                            FetchDescriptor<ConformanceRecord>(sortBy: [SortDescriptor(\.name, order: .reverse)])
                        ).map(\.name),
                        natural.reversed(), "reverse")
                    try check.expectEqual(
                        try context.fetch(
                            FetchDescriptor<ConformanceRecord>(
                                sortBy: [SortDescriptor(\.name, comparator: .lexical, order: .reverse)])
                        ).map(\.name),
                        expected.reversed(), ".lexical, reverse")
                    let below = try check.expectSwiftAgrees(
                        #Predicate<ConformanceRecord> { $0.name < "a" }, in: context, key: \.name, "name < \"a\"")
                    try check.expectEqual(below, ["", "10", "2", "B", "Z"], "names < \"a\"")
                    let between = try check.expectSwiftAgrees(
                        #Predicate<ConformanceRecord> { $0.name >= "B" && $0.name <= "a" }, in: context,
                        key: \.name, "\"B\" <= name <= \"a\"")
                    try check.expectEqual(between, ["B", "Z", "a"], "names from \"B\" to \"a\"")
                },
                ConformanceCase(
                    suite: "fetching", id: "FET-07",
                    title: "[REC] a pending insert takes part in sort, offset, limit and count"
                ) { check in
                    let context = try numbered(check, [1, 3, 5, 7])
                    let pending = ConformanceRecord(name: "p2", number: 2)
                    context.insert(pending)
                    var d = FetchDescriptor<ConformanceRecord>(sortBy: [SortDescriptor(\.number)])
                    try check.expectEqual(
                        try context.fetch(d).map(\.number), [1, 2, 3, 5, 7], "all rows with the pending insert")
                    d.fetchOffset = 1
                    d.fetchLimit = 2
                    let page = try context.fetch(d)
                    try check.expectEqual(page.map(\.number), [2, 3], "page 2…3")
                    try check.expect(
                        page.first === pending, "the page holds the pending instance itself", actual: "another instance"
                    )
                    try check.expectEqual(try context.fetchCount(d), 2, "fetchCount of the page")
                    d.sortBy = [SortDescriptor(\.number, order: .reverse)]
                    d.fetchOffset = 3
                    d.fetchLimit = 5
                    try check.expectEqual(try context.fetch(d).map(\.number), [2, 1], "reverse page")
                    d.includePendingChanges = false
                    try check.expectEqual(
                        try context.fetch(d).map(\.number), [1], "reverse page without pending changes")
                    // Predicates filter pending inserts too.
                    var small = FetchDescriptor<ConformanceRecord>(
                        predicate: #Predicate { $0.number < 3 }, sortBy: [SortDescriptor(\.number)])
                    try check.expectEqual(
                        try context.fetch(small).map(\.number), [1, 2], "number < 3 with the pending insert")
                    context.insert(ConformanceRecord(name: "p9", number: 9))
                    try check.expectEqual(
                        try context.fetch(small).map(\.number), [1, 2], "a pending insert the predicate rejects")
                    small.includePendingChanges = false
                    try check.expectEqual(
                        try context.fetch(small).map(\.number), [1], "number < 3 without pending changes")
                    try check.expectEqual(
                        try context.fetchCount(small), 1, "count of number < 3 without pending changes")
                },
                ConformanceCase(
                    suite: "fetching", id: "FET-07",
                    title: "[REC] pending changes and deletes of stored rows are reflected in fetch and fetchCount"
                ) { check in
                    let context = try numbered(check, 1...10)
                    let all = try context.fetch(FetchDescriptor<ConformanceRecord>(sortBy: [SortDescriptor(\.number)]))
                    let small = FetchDescriptor<ConformanceRecord>(
                        predicate: #Predicate { $0.number <= 3 }, sortBy: [SortDescriptor(\.number)])
                    try check.expectEqual(try context.fetchCount(small), 3, "count of small numbers before the changes")
                    all[0].number = 50  // 1 leaves the set
                    all[8].number = 0  // 9 joins it, first
                    context.delete(all[1])  // 2 is deleted
                    context.insert(ConformanceRecord(name: "new", number: -1))
                    try check.expectEqual(
                        try context.fetch(small).map(\.number), [-1, 0, 3], "small numbers with pending changes")
                    try check.expectEqual(try context.fetchCount(small), 3, "count of small numbers")
                    try check.expectEqual(
                        try context.fetchCount(FetchDescriptor<ConformanceRecord>()), 10, "count of all")
                    var top = FetchDescriptor<ConformanceRecord>(sortBy: [SortDescriptor(\.number, order: .reverse)])
                    top.fetchLimit = 2
                    try check.expectEqual(try context.fetch(top).map(\.number), [50, 10], "top two")
                    var storeOnly = small
                    storeOnly.includePendingChanges = false
                    try check.expectEqual(
                        try context.fetchCount(storeOnly), 3, "count of small numbers in the store only")
                    try context.save()
                    try check.expectEqual(
                        try ModelContext(try check.reopen(context.container)).fetch(small).map(\.number), [-1, 0, 3],
                        "stored after save")
                },
                ConformanceCase(
                    suite: "fetching", id: "FET-08",
                    title: "propertiesToFetch: attributes not listed still read their stored values"
                ) { check in
                    let container = try check.container(for: ConformanceRecord.self)
                    let writer = ModelContext(container)
                    let date = Date(timeIntervalSince1970: 1_234_567.5)
                    writer.insert(
                        ConformanceRecord(
                            name: "full", number: 7, amount: 2.5, note: "n", rank: 3, flag: true, date: date))
                    writer.insert(ConformanceRecord(name: "other", number: 8))
                    try writer.save()
                    let context = ModelContext(try check.reopen(container))
                    var d = FetchDescriptor<ConformanceRecord>(predicate: #Predicate { $0.name == "full" })
                    d.propertiesToFetch = [\.name]
                    let rows = try context.fetch(d)
                    try check.expectEqual(rows.count, 1, "rows")
                    try check.expectEqual(
                        rows.map {
                            "\($0.number) \($0.amount) \($0.note ?? "-") \($0.rank ?? -1) \($0.flag) \($0.date.timeIntervalSince1970)"
                        },
                        ["7 2.5 n 3 true 1234567.5"], "attributes not fetched up front")
                },
                ConformanceCase(
                    suite: "fetching", id: "FET-09",
                    title:
                        "fetchIdentifiers gives fetch's identifiers in the same order; they resolve in a fresh context"
                ) { check in
                    let context = try numbered(check, 1...10)
                    var d = FetchDescriptor<ConformanceRecord>(
                        predicate: #Predicate { $0.number > 2 }, sortBy: [SortDescriptor(\.number, order: .reverse)])
                    d.fetchLimit = 5
                    let ids = try context.fetchIdentifiers(d)
                    try check.expectEqual(ids, try context.fetch(d).map(\.persistentModelID), "identifiers vs fetch")
                    try check.expect(
                        ids.allSatisfy { !$0.isTemporary }, "identifiers are permanent",
                        actual: "a temporary identifier")
                    try check.expect(
                        ids.allSatisfy { $0.entityName == "ConformanceRecord" }, "identifiers name the entity",
                        actual: "another entity")
                    let other = ModelContext(try check.reopen(context.container))
                    let numbers = ids.compactMap { other.model(for: $0) as? ConformanceRecord }.map(\.number)
                    try check.expectEqual(numbers, [10, 9, 8, 7, 6], "numbers of the resolved identifiers")
                },
                ConformanceCase(
                    suite: "fetching", id: "FET-10",
                    title: "enumerate visits every match once across batches; escaping mutations are refused"
                ) { check in
                    let context = try numbered(check, 1...5)
                    for batch in [1, 2, 5, 100] {
                        try check.within("batchSize=\(batch)") {
                            var seen: [Int] = []
                            try context.enumerate(
                                FetchDescriptor<ConformanceRecord>(sortBy: [SortDescriptor(\.number)]), batchSize: batch
                            ) { seen.append($0.number) }
                            try check.expectEqual(seen, [1, 2, 3, 4, 5], "visited numbers")
                            seen = []
                            try context.enumerate(
                                FetchDescriptor<ConformanceRecord>(predicate: #Predicate { $0.number != 3 }),
                                batchSize: batch
                            ) { seen.append($0.number) }
                            try check.expectEqual(seen.sorted(), [1, 2, 4, 5], "visited numbers with a predicate")
                        }
                    }
                    // Offset and limit apply to the whole enumeration, in the descriptor's order.
                    var window = FetchDescriptor<ConformanceRecord>(sortBy: [SortDescriptor(\.number, order: .reverse)])
                    window.fetchOffset = 1
                    window.fetchLimit = 3
                    var seen: [Int] = []
                    try context.enumerate(window, batchSize: 2) { seen.append($0.number) }
                    try check.expectEqual(seen, [4, 3, 2], "visited numbers, reverse order, offset 1, limit 3")
                    // A model the block deletes before its batch is reached is not visited.
                    seen = []
                    try context.enumerate(
                        FetchDescriptor<ConformanceRecord>(sortBy: [SortDescriptor(\.number)]), batchSize: 2,
                        allowEscapingMutations: true
                    ) { record in
                        seen.append(record.number)
                        if record.number == 1,
                            let five = try context.fetch(
                                FetchDescriptor<ConformanceRecord>(predicate: #Predicate { $0.number == 5 })
                            ).first
                        {
                            context.delete(five)
                        }
                    }
                    try check.expectEqual(seen, [1, 2, 3, 4], "visited numbers after deleting 5 from the block")
                    context.rollback()
                    // Pending inserts are enumerated with the stored rows (includePendingChanges).
                    context.insert(ConformanceRecord(name: "pending", number: 6))
                    seen = []
                    try context.enumerate(
                        FetchDescriptor<ConformanceRecord>(sortBy: [SortDescriptor(\.number)]), batchSize: 4,
                        allowEscapingMutations: true
                    ) { seen.append($0.number) }
                    try check.expectEqual(seen, [1, 2, 3, 4, 5, 6], "visited numbers with a pending insert")
                    context.rollback()
                    try check.expectError(
                        SwiftDataError.modelValidationFailure, "a mutation with allowEscapingMutations: false"
                    ) {
                        try context.enumerate(
                            FetchDescriptor<ConformanceRecord>(), batchSize: 2, allowEscapingMutations: false
                        ) { $0.number += 100 }
                    }
                    context.rollback()
                    var touched = 0
                    try context.enumerate(
                        FetchDescriptor<ConformanceRecord>(), batchSize: 2, allowEscapingMutations: true
                    ) {
                        $0.number += 100
                        touched += 1
                    }
                    try check.expectEqual(touched, 5, "models visited with escaping mutations allowed")
                },
                ConformanceCase(
                    suite: "fetching", id: "FET-11",
                    title: "fetch(_:batchSize:) equals the unbatched fetch; with pending changes it throws"
                ) { check in
                    let context = try numbered(check, 1...23)
                    var d = FetchDescriptor<ConformanceRecord>(
                        predicate: #Predicate { $0.number % 3 != 0 },
                        sortBy: [SortDescriptor(\.number, order: .reverse)])
                    let plain = try context.fetch(d)
                    for batch in [1, 4, 50] {
                        try check.within("batchSize=\(batch)") {
                            let batched = try context.fetch(d, batchSize: batch)
                            try check.expectEqual(batched.count, plain.count, "count")
                            try check.expectEqual(batched.count, try context.fetchCount(d), "count vs fetchCount")
                            try check.expectEqual(batched.map(\.number), plain.map(\.number), "elements in order")
                            try check.expect(
                                zip(batched, plain).allSatisfy { $0 === $1 }, "the same registered instances",
                                actual: "different instances")
                        }
                    }
                    d.fetchOffset = 3
                    d.fetchLimit = 5
                    try check.expectEqual(
                        try context.fetch(d, batchSize: 2).map(\.number), try context.fetch(d).map(\.number),
                        "offset 3, limit 5")
                    // Long batches in key order (read as key ranges), with a gap, and batches whose
                    // keys skip rows (read by key): each equals the unbatched fetch.
                    let many = try numbered(check, 1...300)
                    let gone = try many.fetch(
                        FetchDescriptor<ConformanceRecord>(predicate: #Predicate { $0.number == 150 }))
                    for record in gone { many.delete(record) }
                    try many.save()
                    for (label, descriptor) in [
                        ("all", FetchDescriptor<ConformanceRecord>()),
                        (
                            "odd numbers",
                            FetchDescriptor<ConformanceRecord>(predicate: #Predicate { $0.number % 2 == 1 })
                        ),
                        (
                            "descending",
                            FetchDescriptor<ConformanceRecord>(sortBy: [SortDescriptor(\.number, order: .reverse)])
                        ),
                    ] {
                        let plain = try many.fetch(descriptor).map(\.number)
                        try check.expectEqual(
                            try many.fetch(descriptor, batchSize: 100).map(\.number), plain, "batched \(label)")
                        var visited: [Int] = []
                        try many.enumerate(descriptor, batchSize: 100) { visited.append($0.number) }
                        try check.expectEqual(visited, plain, "enumerated \(label)")
                    }
                    context.insert(ConformanceRecord(name: "pending", number: 100))
                    try check.expectError(
                        SwiftDataError.includePendingChangesWithBatchSize, "batched fetch with a pending insert"
                    ) {
                        try context.fetch(d, batchSize: 2).count
                    }
                    d.includePendingChanges = false
                    try check.expectEqual(
                        try context.fetch(d, batchSize: 2).count, 5, "batched fetch without pending changes")
                },
                ConformanceCase(
                    suite: "fetching", id: "FET-12",
                    title: "[REC] paging over equal sort keys covers every row exactly once"
                ) { check in
                    let container = try check.container(for: ConformanceRecord.self)
                    let writer = ModelContext(container)
                    for n in 1...7 { writer.insert(ConformanceRecord(name: "same", number: n)) }
                    try writer.save()
                    let context = ModelContext(try check.reopen(container))
                    for pageSize in [1, 2, 3] {
                        try check.within("pageSize=\(pageSize)") {
                            var collected: [Int] = []
                            for offset in stride(from: 0, to: 7, by: pageSize) {
                                var d = FetchDescriptor<ConformanceRecord>(sortBy: [SortDescriptor(\.name)])
                                d.fetchOffset = offset
                                d.fetchLimit = pageSize
                                collected += try context.fetch(d).map(\.number)
                            }
                            try check.expectEqual(collected.sorted(), Array(1...7), "numbers collected over the pages")
                        }
                    }
                    // Same with a pending insert among the equal keys.
                    context.insert(ConformanceRecord(name: "same", number: 8))
                    var withPending: [Int] = []
                    for offset in stride(from: 0, to: 10, by: 2) {
                        var d = FetchDescriptor<ConformanceRecord>(sortBy: [SortDescriptor(\.name)])
                        d.fetchOffset = offset
                        d.fetchLimit = 2
                        withPending += try context.fetch(d).map(\.number)
                    }
                    try check.expectEqual(
                        withPending.sorted(), Array(1...8), "numbers collected over the pages with a pending insert")
                },
                ConformanceCase(
                    suite: "fetching", id: "FET-12",
                    title: "[REC] equal sort keys come out in key order, also merged with pending changes"
                ) { check in
                    let container = try check.container(for: ConformanceRecord.self)
                    let writer = ModelContext(container)
                    for n in 1...4 { writer.insert(ConformanceRecord(name: "same", number: n)) }
                    try writer.save()
                    let context = ModelContext(try check.reopen(container))
                    let byName = FetchDescriptor<ConformanceRecord>(sortBy: [SortDescriptor(\.name)])
                    try check.expectEqual(try context.fetch(byName).map(\.number), [1, 2, 3, 4], "sorted by name")
                    try check.expectEqual(
                        try context.fetch(FetchDescriptor<ConformanceRecord>()).map(\.number), [1, 2, 3, 4], "unsorted")
                    context.insert(ConformanceRecord(name: "same", number: 5))
                    try context.fetch(byName)[1].amount = 2
                    try check.expectEqual(
                        try context.fetch(byName).map(\.number), [1, 2, 3, 4, 5],
                        "sorted by name with a pending insert and change (the insert last)")
                    try check.expectEqual(
                        try context.fetch(FetchDescriptor<ConformanceRecord>()).map(\.number), [1, 2, 3, 4, 5],
                        "unsorted with a pending insert and change")
                },
            ])
    }
}

/// Stores one record per number (named `r<n>`) and returns a fresh context on the reopened store.
private func numbered<S: Sequence<Int>>(_ check: ConformanceCheck, _ numbers: S) throws -> ModelContext {
    let container = try check.container(for: ConformanceRecord.self)
    let writer = ModelContext(container)
    for n in numbers { writer.insert(ConformanceRecord(name: "r\(n)", number: n)) }
    try writer.save()
    return ModelContext(try check.reopen(container))
}
