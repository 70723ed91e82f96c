/// Why a sound could not be written. Renders as one line for people; callers add the file's name.
public struct EncodingError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The container cannot hold the encoding, or the rate or channel count is out of range.
        case unsupported
        /// The caller broke the writer's contract (a partial frame, a write after finish).
        case invalidUse
        /// The data outgrew what the container's size fields can express.
        case tooLarge
        /// Creating, writing or renaming the output failed.
        case io
    }

    public var kind: Kind
    /// What is wrong, without the file's name: "AIFF holds big-endian integer PCM only; ...".
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    static func unsupported(_ message: String) -> Self { .init(.unsupported, message) }
}
