import Foundation

/// Why a file could not be read or decoded, in a few words, for one-line messages
/// (`no such file`, `field 'seed' is not of type UInt64`); shared by the harness's modules.
package enum ReadFailure {
    /// A short reason for `error`, thrown while reading a file (Foundation's file errors) or
    /// decoding it (`DecodingError`); other errors give their own description.
    package static func brief(_ error: any Error) -> String {
        if let decoding = error as? DecodingError { return decoding.briefDescription }
        if let cocoa = error as? CocoaError {
            switch cocoa.code {
            case .fileReadNoSuchFile, .fileNoSuchFile: return "no such file"
            case .fileReadNoPermission: return "permission denied"
            case .fileReadCorruptFile: return "the file is damaged"
            case .fileReadTooLarge: return "the file is too large to read"
            default: break
            }
            if let posix = cocoa.userInfo[NSUnderlyingErrorKey] as? NSError, posix.domain == NSPOSIXErrorDomain {
                return String(cString: strerror(Int32(posix.code))).lowercased()
            }
            return cocoa.localizedDescription
        }
        return "\(error)"
    }
}
