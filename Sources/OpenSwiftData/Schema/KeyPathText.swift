import Foundation

/// Key paths as messages print them.
///
/// Swift prints a key path through a computed property — and every `@Model` property is computed
/// (its accessors read the backing data) — with an address instead of a name:
/// `\Invoice.<computed 0x000055f89b306720 (Bool)>`. A key path the model's layout knows prints
/// with the property's name (`\Invoice.paid`); any other computed component prints as
/// `<computed property of type Bool>`, without the address, which means nothing to a reader.
enum KeyPathText {
    /// `keyPath` for a message: named through `layout` when it is one of its slots' key paths.
    static func readable(_ keyPath: AnyKeyPath, layout: ModelLayout? = nil) -> String {
        if let layout, let slot = layout.slotByKeyPath[keyPath] {
            return "\\\(layout.name).\(layout.slots[slot].name)"
        }
        return withoutAddresses("\(keyPath)")
    }

    /// The members `keyPath` reads, as they follow a value in source: `city` for
    /// `\Address.city`, `<computed property of type Int>` for a computed one (`withoutAddresses(_:)`).
    static func memberText(_ keyPath: AnyKeyPath) -> String {
        let text = withoutAddresses("\(keyPath)")
        let root = "\\\(type(of: keyPath).rootType)."
        if text.hasPrefix(root) { return String(text.dropFirst(root.count)) }
        // A root type spelled otherwise: the components start after the first `.` outside `<…>`.
        var angles = 0
        for (i, c) in zip(text.indices, text) {
            if c == "<" {
                angles += 1
            } else if c == ">" {
                angles -= 1
            } else if c == ".", angles == 0 {
                return String(text[text.index(after: i)...])
            }
        }
        return text
    }

    /// `text` with every `<computed 0x… (T)>` component replaced by `<computed property of type T>`.
    static func withoutAddresses(_ text: String) -> String {
        var out = ""
        var rest = Substring(text)
        while let start = rest.range(of: "<computed 0x") {
            out += rest[..<start.lowerBound]
            let afterAddress = rest[start.upperBound...].drop { $0.isHexDigit }
            guard afterAddress.hasPrefix(" ("), let close = afterAddress.range(of: ")>") else {
                out += rest[start.lowerBound...]
                return out
            }
            let type = afterAddress[afterAddress.index(afterAddress.startIndex, offsetBy: 2)..<close.lowerBound]
            out += "<computed property of type \(type)>"
            rest = afterAddress[close.upperBound...]
        }
        return out + rest
    }
}
