import Foundation

/// What is wrong with a request to subset or scrub a store (``FixtureSubset``, ``FixtureScrub``):
/// a name the schema does not have, an attribute that cannot be scrubbed, a malformed rule, or an
/// output that would overwrite the input. Each message is one line and lists the valid choices.
///
/// ```swift
/// do { _ = try FixtureScrub.Rule(parsing: "Product.nmae") } catch let error as FixtureSubsetError { print(error) }
/// ```
public enum FixtureSubsetError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An entity the schema does not have; `valid` lists the schema's entities.
    case unknownEntity(String, valid: [String])
    /// An attribute the entity does not have; `valid` lists the entity's attributes.
    case unknownAttribute(entity: String, attribute: String, valid: [String])
    /// An attribute whose type cannot be scrubbed (only `String` attributes can); `scrubbable`
    /// lists the entity's `String` attributes.
    case unsupportedAttribute(entity: String, attribute: String, type: String, scrubbable: [String])
    /// A scrub kind that does not exist; `valid` lists the kinds.
    case unknownKind(String, valid: [String])
    /// A `--scrub` or `--keep` text that does not have the expected shape.
    case malformed(String, expected: String)
    /// The same entity named twice in `keep`, or the same attribute in two scrub rules.
    case duplicate(String)
    /// A negative row count.
    case negativeCount(entity: String, count: Int)
    /// The output file is the input file (a subset is always written to a copy).
    case outputIsInput(String)

    /// The one-line message.
    public var description: String {
        switch self {
        case .unknownEntity(let name, let valid):
            "no entity '\(name)' in the schema; entities: \(valid.joined(separator: ", "))"
        case .unknownAttribute(let entity, let attribute, let valid):
            "\(entity) has no attribute '\(attribute)'; its attributes: \(valid.joined(separator: ", "))"
        case .unsupportedAttribute(let entity, let attribute, let type, let scrubbable):
            "\(entity).\(attribute) is \(type); only String attributes can be scrubbed"
                + (scrubbable.isEmpty
                    ? " and \(entity) has none" : " (\(entity)'s: \(scrubbable.joined(separator: ", ")))")
        case .unknownKind(let kind, let valid):
            "no scrub kind '\(kind)'; kinds: \(valid.joined(separator: ", "))"
        case .malformed(let text, let expected):
            "'\(text)' is not \(expected)"
        case .duplicate(let name):
            "\(name) is named twice"
        case .negativeCount(let entity, let count):
            "\(entity): \(count) rows; a count is 0 or more (or 'all')"
        case .outputIsInput(let path):
            "the output is the input file (\(path)); a subset is written to a new file and the input is never modified"
        }
    }
}
