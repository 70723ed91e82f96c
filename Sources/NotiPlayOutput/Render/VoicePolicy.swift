/// Which sound gives way when every voice of a stream is taken, as a pure decision the engine
/// asks under its lock (and the tests ask directly).
///
/// Critical sounds come first, then the newest: a newcomer takes the place of the oldest
/// non-critical voice; a critical newcomer, when every voice is critical, the oldest critical
/// one; a non-critical newcomer when every voice is critical is refused. A notification is about
/// now, and a stale sound is the one to lose.
package struct VoicePolicy: Sendable {
    /// A voice still sounding: not fading out, not ended.
    package struct Voice: Equatable, Sendable {
        package var slot: Int
        /// Grows with each sound: the smallest is the oldest.
        package var id: Int
        package var isCritical: Bool
        package init(slot: Int, id: Int, isCritical: Bool) {
            self.slot = slot
            self.id = id
            self.isCritical = isCritical
        }
    }

    package enum Decision: Equatable, Sendable {
        /// There is room.
        case admit
        /// Room is made by fading out the voice in this slot.
        case replace(slot: Int)
        /// Every voice outranks the newcomer.
        case refuse
    }

    /// Sounds that may play at once.
    package var capacity: Int

    package init(capacity: Int) { self.capacity = max(1, capacity) }

    package func decide(sounding: [Voice], newcomerIsCritical: Bool) -> Decision {
        guard sounding.count >= capacity else { return .admit }
        let candidates = sounding.filter { !$0.isCritical || newcomerIsCritical }
        guard let oldest = candidates.min(by: { $0.id < $1.id }) else { return .refuse }
        return .replace(slot: oldest.slot)
    }
}
