// Relationships declared without `inverse:`: SwiftData pairs the only relationship each way
// between two classes, except a many-to-many pair, which stays two one-way relationships (a
// public SwiftData behaviour suite pins this on iOS 17).
import Foundation
import SwiftData
import Testing

@Model
final class Shelf {
    var label: String
    var volumes: [Volume] = []
    init(label: String) { self.label = label }
}

@Model
final class Volume {
    var title: String
    var shelf: Shelf?
    init(title: String) { self.title = title }
}

@Model
final class Course {
    var code: String
    var pupils: [Pupil] = []
    init(code: String) { self.code = code }
}

@Model
final class Pupil {
    var name: String
    var courses: [Course] = []
    init(name: String) { self.name = name }
}

@Suite("Compatibility: inverses SwiftData infers")
struct InverseInferenceTests {
    @Test("REL-06 a to-many and a to-one are paired; a many-to-many pair is not")
    func inferredPairs() throws {
        let container = try ModelContainer(
            for: Shelf.self, Course.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let shelf = Shelf(label: "A")
        let volume = Volume(title: "Dune")
        context.insert(shelf)
        volume.shelf = shelf
        #expect(shelf.volumes.count == 1)
        let course = Course(code: "CS101")
        let pupil = Pupil(name: "Ada")
        context.insert(course)
        context.insert(pupil)
        course.pupils.append(pupil)
        #expect(pupil.courses.isEmpty)
        try context.save()
        let fresh = ModelContext(container)
        let stored = try #require(try fresh.fetch(FetchDescriptor<Pupil>()).first)
        #expect(stored.courses.isEmpty)
        #expect(try fresh.fetch(FetchDescriptor<Course>()).first?.pupils.map(\.name) == ["Ada"])
        let schema = container.schema
        #expect(schema.entitiesByName["Course"]?.relationships.first?.inverseName == nil)
        #expect(schema.entitiesByName["Shelf"]?.relationships.first?.inverseName == "shelf")
    }
}
