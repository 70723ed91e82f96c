import NotiPlayDecoder
import NotiPlayOutput
import Synchronization

/// Decoded sounds kept for replay, by file identity (device, inode, size, modification time),
/// oldest let go first, at most `limit` bytes of samples in all. A sound's first play streams
/// from the file and records what it decodes (see ``RecordingDecoderSource``); the recording
/// arrives on the engine's decode worker, hence the lock.
final class SoundCache: Sendable {
    private struct Entries {
        var sounds: [FileIdentity: (sound: DecodedSound, layout: ChannelLayout?)] = [:]
        var order: [FileIdentity] = []
        var bytes = 0
    }

    let limit: Int
    private let entries = Mutex(Entries())

    init(limit: Int) { self.limit = max(0, limit) }

    /// The cached decode when the file has not changed since; otherwise the file, streamed and
    /// recorded for the cache unless it is larger than the whole cache. With it, the speakers the
    /// file names for its channels (nil: it names none, or libsndfile read it).
    func source(for file: SoundFile, loops: Bool) throws(NotificationSoundError) -> (source: any FrameSource, layout: ChannelLayout?) {
        let identity = file.file.identity
        if let cached = entries.withLock({ $0.sounds[identity] }) {
            return (DecodedSoundSource(cached.sound, loops: loops), cached.layout)
        }
        let layout = Mutex<ChannelLayout?>(nil)
        // Strong: the cache holds no source, so there is no cycle; it lives while the sound
        // plays. (A weak reference's side table is what LeakSanitizer reported at every exit
        // of the command, which plays through a player since its one play path.)
        let source = try SoundSources.open(file, loops: loops, recordingLimit: limit / MemoryLayout<Float>.size) { [self] sound in
            remember(sound, layout: layout.withLock { $0 }, as: identity)
        }
        let named = (source as? RecordingDecoderSource)?.channelLayout
        layout.withLock { $0 = named }
        return (source, named)
    }

    /// Samples held, for the tests.
    var byteCount: Int { entries.withLock { $0.bytes } }

    private func remember(_ sound: DecodedSound, layout: ChannelLayout?, as identity: FileIdentity) {
        let bytes = sound.samples.count * MemoryLayout<Float>.size
        guard bytes <= limit else { return }
        entries.withLock { entries in
            guard entries.sounds[identity] == nil else { return }
            entries.sounds[identity] = (sound, layout)
            entries.order.append(identity)
            entries.bytes += bytes
            while entries.bytes > limit, let oldest = entries.order.first {
                entries.order.removeFirst()
                entries.bytes -= (entries.sounds.removeValue(forKey: oldest)?.sound.samples.count ?? 0) * MemoryLayout<Float>.size
            }
        }
    }
}
