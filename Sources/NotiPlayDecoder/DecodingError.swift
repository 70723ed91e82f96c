/// Why a sound could not be read. Renders as one line for people; callers add the file's name.
public struct DecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// Not a WAV, AIFF/AIFC or CAF file at all.
        case unknownContainer
        /// The container's structure is broken or a header value is out of range.
        case malformed
        /// Well formed, but an encoding or variant noti-play does not decode.
        case unsupported
        /// The file ends before the data its header promises is complete.
        case truncated
        /// Reading failed (no such file, permission, a directory, ...).
        case io
    }

    public var kind: Kind
    /// What is wrong, in words, without the file's name: "IMA ADPCM block align 0 is invalid".
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    static func malformed(_ message: String) -> Self { .init(.malformed, message) }
    static func unsupported(_ message: String) -> Self { .init(.unsupported, message) }
    static func truncated(_ message: String) -> Self { .init(.truncated, message) }
}

extension Error {
    /// The one-line reason, whatever layer threw.
    package var message: String {
        (self as? DecodingError)?.message ?? String(describing: self)
    }
}
