import Foundation

extension DecodingError {
    /// What is wrong with a decoded document, in a few words, for one-line messages
    /// (`field 'seed' is not of type UInt64`); shared by the harness's modules.
    package var briefDescription: String {
        func field(_ path: [any CodingKey]) -> String {
            path.isEmpty
                ? "the top level"
                : "field '"
                    + path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
                    .joined(separator: ".") + "'"
        }
        switch self {
        case .keyNotFound(let key, let context): return "\(field(context.codingPath + [key])) is missing"
        case .typeMismatch(let type, let context): return "\(field(context.codingPath)) is not of type \(type)"
        case .valueNotFound(let type, let context): return "\(field(context.codingPath)) is null, not \(type)"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "\(field(context.codingPath)) is malformed"
        @unknown default: return "it cannot be decoded"
        }
    }
}
