import Foundation
import OpenSwiftData
import OpenSwiftDataTesting
import Testing

// Every relationship shape with every delete rule, for the schema-derived delete-rule cases:
// to-one, `[T]`, `[T]?` (the CloudKit style), many-to-many, one-way and self-reference.

@Model final class ShapeUser {
    var name: String = ""
    @Relationship(deleteRule: .cascade, inverse: \ShapeProfile.cascadeUser) var cascadeProfile: ShapeProfile?
    @Relationship(deleteRule: .nullify, inverse: \ShapeProfile.nullifyUser) var nullifyProfile: ShapeProfile?
    @Relationship(deleteRule: .deny, inverse: \ShapeProfile.denyUser) var denyProfile: ShapeProfile?
    @Relationship(deleteRule: .noAction, inverse: \ShapeProfile.noActionUser) var noActionProfile: ShapeProfile?
    init(name: String) { self.name = name }
}

@Model final class ShapeProfile {
    var bio: String = ""
    var cascadeUser: ShapeUser?
    var nullifyUser: ShapeUser?
    var denyUser: ShapeUser?
    var noActionUser: ShapeUser?
    init(bio: String) { self.bio = bio }
}

@Model final class ShapeList {
    var title: String = ""
    @Relationship(deleteRule: .cascade, inverse: \ShapeItem.cascadeList) var cascadeItems: [ShapeItem] = []
    @Relationship(deleteRule: .nullify, inverse: \ShapeItem.nullifyList) var nullifyItems: [ShapeItem] = []
    @Relationship(deleteRule: .deny, inverse: \ShapeItem.denyList) var denyItems: [ShapeItem] = []
    @Relationship(deleteRule: .noAction, inverse: \ShapeItem.noActionList) var noActionItems: [ShapeItem] = []
    init(title: String) { self.title = title }
}

@Model final class ShapeItem {
    var label: String = ""
    var cascadeList: ShapeList?
    var nullifyList: ShapeList?
    var denyList: ShapeList?
    var noActionList: ShapeList?
    init(label: String) { self.label = label }
}

@Model final class ShapeClient {
    var name: String = ""
    @Relationship(deleteRule: .cascade, inverse: \ShapeContact.cascadeClient) var cascadeContacts: [ShapeContact]? = []
    @Relationship(deleteRule: .nullify, inverse: \ShapeContact.nullifyClient) var nullifyContacts: [ShapeContact]? = []
    @Relationship(deleteRule: .deny, inverse: \ShapeContact.denyClient) var denyContacts: [ShapeContact]? = []
    @Relationship(deleteRule: .noAction, inverse: \ShapeContact.noActionClient) var noActionContacts: [ShapeContact]? =
        []
    init(name: String) { self.name = name }
}

@Model final class ShapeContact {
    var email: String = ""
    var cascadeClient: ShapeClient?
    var nullifyClient: ShapeClient?
    var denyClient: ShapeClient?
    var noActionClient: ShapeClient?
    init(email: String) { self.email = email }
}

@Model final class ShapePost {
    var title: String = ""
    @Relationship(deleteRule: .cascade, inverse: \ShapeTag.cascadePosts) var cascadeTags: [ShapeTag] = []
    @Relationship(deleteRule: .nullify, inverse: \ShapeTag.nullifyPosts) var nullifyTags: [ShapeTag] = []
    @Relationship(deleteRule: .deny, inverse: \ShapeTag.denyPosts) var denyTags: [ShapeTag] = []
    @Relationship(deleteRule: .noAction, inverse: \ShapeTag.noActionPosts) var noActionTags: [ShapeTag] = []
    init(title: String) { self.title = title }
}

@Model final class ShapeTag {
    var word: String = ""
    var cascadePosts: [ShapePost] = []
    var nullifyPosts: [ShapePost] = []
    var denyPosts: [ShapePost] = []
    var noActionPosts: [ShapePost] = []
    init(word: String) { self.word = word }
}

@Model final class ShapeFolder {
    var name: String = ""
    @Relationship(deleteRule: .cascade) var cascadeFiles: [ShapeFile] = []
    @Relationship(deleteRule: .nullify) var nullifyFiles: [ShapeFile] = []
    @Relationship(deleteRule: .deny) var denyFiles: [ShapeFile] = []
    @Relationship(deleteRule: .noAction) var noActionFiles: [ShapeFile] = []
    init(name: String) { self.name = name }
}

@Model final class ShapeFile {
    var path: String = ""
    init(path: String) { self.path = path }
}

@Model final class ShapeNode {
    var name: String = ""
    @Relationship(deleteRule: .cascade, inverse: \ShapeNode.cascadeParent) var cascadeChildren: [ShapeNode] = []
    var cascadeParent: ShapeNode?
    @Relationship(deleteRule: .nullify, inverse: \ShapeNode.nullifyParent) var nullifyChildren: [ShapeNode] = []
    var nullifyParent: ShapeNode?
    @Relationship(deleteRule: .deny, inverse: \ShapeNode.denyParent) var denyChildren: [ShapeNode] = []
    var denyParent: ShapeNode?
    @Relationship(deleteRule: .noAction, inverse: \ShapeNode.noActionParent) var noActionChildren: [ShapeNode] = []
    var noActionParent: ShapeNode?
    init(name: String) { self.name = name }
}

@Model class ShapePayment {
    var amount: Double = 0
    init(amount: Double) { self.amount = amount }
}

@Model class ShapeCardPayment: ShapePayment {
    var last4: String = ""
    init(amount: Double, last4: String) {
        self.last4 = last4
        super.init(amount: amount)
    }
}

@Model class ShapeCashPayment: ShapePayment {
    var tendered: Double = 0
    init(amount: Double, tendered: Double) {
        self.tendered = tendered
        super.init(amount: amount)
    }
}

@Suite("SchemaConformance on every relationship shape")
struct RelationshipShapeConformanceTests {
    /// One schema per shape, named for the failure messages.
    static let shapes: [(name: String, schema: Schema)] = [
        ("to-one", Schema([ShapeUser.self, ShapeProfile.self])),
        ("[T]", Schema([ShapeList.self, ShapeItem.self])),
        ("[T]?", Schema([ShapeClient.self, ShapeContact.self])),
        ("many-to-many", Schema([ShapePost.self, ShapeTag.self])),
        ("one-way", Schema([ShapeFolder.self, ShapeFile.self])),
        ("self-reference", Schema([ShapeNode.self])),
    ]

    @Test(
        "DEL-02 DEL-03 DEL-06 DEL-07 DEL-08 every shape's cascade, nullify, deny and noAction cases pass on both stores",
        arguments: StoreKind.allCases)
    func deleteRules(store: StoreKind) throws {
        for (name, schema) in Self.shapes {
            let conformance = SchemaConformance(schema: schema)
            let deleteCases = conformance.cases.filter { $0.id == "SCH-DEL" }
            for rule in ["cascade", "nullify", "deny", "noAction"] {
                #expect(deleteCases.contains { $0.title.contains(" .\(rule): ") }, "\(name): no .\(rule) case")
            }
            let failures = conformance.suite.run(on: store).compactMap(\.failure)
            #expect(failures.isEmpty, "\(name): \(failures.map(\.description).joined(separator: "\n"))")
        }
    }

    @Test("the [T]? cascade case links its children: the derived check deletes them with their client")
    func optionalArrayIsLinked() throws {
        let conformance = SchemaConformance(schema: Schema([ShapeClient.self, ShapeContact.self]))
        let cascade = try #require(conformance.cases.first { $0.title.hasPrefix("ShapeClient.cascadeContacts ") })
        try cascade.verify(store: .memory)
        // Automatic data fills `[T]?` relationships as it fills `[T]`.
        let fixture = Fixture(schema: Schema([ShapeClient.self, ShapeContact.self]), seed: 3, defaultCount: 6)
        let pair = try StorePair(schema: Schema([ShapeClient.self, ShapeContact.self]), seed: 3)
        try pair.populate(fixture)
        let clients = try ModelContext(pair.memory).fetch(FetchDescriptor<ShapeClient>())
        #expect(clients.contains { !($0.cascadeContacts ?? []).isEmpty || !($0.nullifyContacts ?? []).isEmpty })
        try pair.expectSameContents("automatic data with [T]? relationships")
    }

    @Test("SCH-DECL declarations and case titles do not depend on the order of the schema's array")
    func orderIndependent() throws {
        let one = SchemaConformance(schema: Schema([ShapePayment.self, ShapeCardPayment.self, ShapeCashPayment.self]))
        let two = SchemaConformance(schema: Schema([ShapeCashPayment.self, ShapePayment.self, ShapeCardPayment.self]))
        #expect(one.declarations == two.declarations)
        #expect(one.declarations.contains("hierarchy ShapePayment: ShapeCardPayment, ShapeCashPayment"))
        #expect(Set(one.cases.map(\.title)) == Set(two.cases.map(\.title)))
        let pinned = SchemaConformance(
            schema: Schema([ShapeCashPayment.self, ShapeCardPayment.self, ShapePayment.self]),
            expecting: ["hierarchy ShapePayment: ShapeCardPayment, ShapeCashPayment"])
        for store in StoreKind.allCases {
            let failures = pinned.suite.run(on: store).compactMap(\.failure)
            #expect(failures.isEmpty, "\(failures.map(\.description).joined(separator: "\n"))")
        }
    }
}
