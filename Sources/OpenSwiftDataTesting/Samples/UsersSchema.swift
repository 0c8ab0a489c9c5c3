import Foundation
import OpenSwiftData

/// A user of the users sample schema, with a unique UUID and a unique user name.
///
/// ```swift
/// let u = AccountUser(id: row.uuid("id"), username: "user1", name: "Zoë Müller", email: "a@example.com", joined: FixtureEpoch.reference)
/// ```
@Model package final class AccountUser {
    /// The user's identifier, unique.
    @Attribute(.unique) package var id: UUID
    /// The login name, unique.
    @Attribute(.unique) package var username: String
    /// The display name (any script).
    package var name: String
    /// The email address (not unique: about 1% repeat an earlier one).
    package var email: String
    /// When the user joined.
    package var joined: Date
    /// A score, normally distributed.
    package var score: Int
    /// A biography, or `nil`.
    package var bio: String?
    /// A user.
    package init(
        id: UUID, username: String, name: String, email: String, joined: Date, score: Int = 0, bio: String? = nil
    ) {
        self.id = id
        self.username = username
        self.name = name
        self.email = email
        self.joined = joined
        self.score = score
        self.bio = bio
    }
}

extension SampleSchema {
    /// Users with unique ids and user names, names in several scripts, duplicate emails.
    ///
    /// Scale N: N users.
    /// ```swift
    /// let fixture = SampleSchema.users.fixture(seed: 1, scale: 500, traits: [.unicodeHeavy])
    /// ```
    package static var users: SampleSchema {
        SampleSchema(
            name: "users",
            summary: "users with @Attribute(.unique) ids, names in several scripts",
            modelTypes: [AccountUser.self]
        ) { seed, scale, traits in
            Fixture(seed: seed, traits: traits) {
                Generate(AccountUser.self, count: scale) { row in
                    AccountUser(
                        id: row.uuid("id"),
                        username: "user\(row.index)",
                        name: row.personName("name"),
                        email: row.key("email", duplicateRatio: 0.01) { $0.email("email") },
                        joined: row.date("joined", seconds: 0...(1_000 * 86_400)),
                        score: row.int("score", .normal(mean: 500, standardDeviation: 120, in: 0...1_000)),
                        bio: row.nullable("bio", ratio: 0.5) { row.text("bio") })
                }
                .allowingCollisions()  // emails collide on purpose (1%) and now and then by chance
            }
        }
    }
}
