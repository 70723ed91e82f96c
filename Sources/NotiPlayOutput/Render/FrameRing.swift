import Synchronization

/// A single-producer, single-consumer ring of interleaved Float32 frames.
///
/// The decode worker writes; the render thread reads. Each side owns one counter and only reads
/// the other's, with acquire/release ordering: no locks, so the render thread never waits on the
/// decoder. Counters count frames ever written/read; their difference is the fill level.
/// Its memory is taken when a voice first needs it, sized by that voice (see `reset`), and kept
/// for the slot's next voices: an engine playing one sound holds one ring, not sixteen.
struct FrameRing: ~Copyable {
    /// Allocated by the first `reset`; the render thread reads only slots that are playing.
    private var storage: UnsafeMutablePointer<Float>?
    private var storageSamples = 0
    private(set) var channelCount = 1
    /// A power of two, so a position's slot is a mask away.
    private(set) var capacityFrames: Int {
        @_noLocks get { capacity }
        set { capacity = newValue }
    }
    private var capacity = 0
    private let written = Atomic<Int>(0)
    private let consumed = Atomic<Int>(0)

    init() {}

    deinit { storage?.deallocate() }

    /// Empties the ring, sets the frame size and makes room for at least `minimumFrames` frames
    /// (a power of two), allocating only when the slot's memory is smaller than that. Only while
    /// neither side is using it (the slot is being prepared, under the engine's lock).
    mutating func reset(channelCount: Int, minimumFrames: Int) {
        self.channelCount = channelCount
        var frames = 1
        while frames < minimumFrames { frames *= 2 }
        if frames * channelCount > storageSamples {
            storage?.deallocate()
            storageSamples = frames * channelCount
            storage = .allocate(capacity: storageSamples)  // read only where written: no need to zero it
        }
        capacityFrames = frames
        written.store(0, ordering: .relaxed)
        consumed.store(0, ordering: .relaxed)
    }

    // MARK: Producer side

    /// The free space that lies contiguously from the write position (may be less than all free space).
    func writableRegion() -> UnsafeMutableBufferPointer<Float> {
        let w = written.load(ordering: .relaxed)
        let free = capacityFrames - (w - consumed.load(ordering: .acquiring))
        let start = w & (capacityFrames - 1)
        let frames = min(free, capacityFrames - start)
        return UnsafeMutableBufferPointer(start: storage.unsafelyUnwrapped + start * channelCount, count: frames * channelCount)
    }

    /// Publishes `frames` frames written into the region from `writableRegion()`.
    func commitWrite(frames: Int) {
        written.store(written.load(ordering: .relaxed) + frames, ordering: .releasing)
    }


    // MARK: Consumer side (the render thread)

    /// The frames ready to read that lie contiguously from the read position.
    @_noLocks
    func readableRegion() -> (samples: UnsafePointer<Float>, frames: Int) {
        let r = consumed.load(ordering: .relaxed)
        let available = written.load(ordering: .acquiring) - r
        let start = r & (capacityFrames - 1)
        return (UnsafePointer(storage.unsafelyUnwrapped + start * channelCount), min(available, capacityFrames - start))
    }

    @_noLocks
    func commitRead(frames: Int) {
        consumed.store(consumed.load(ordering: .relaxed) + frames, ordering: .releasing)
    }

    var readableFrames: Int {
        @_noLocks get { written.load(ordering: .acquiring) - consumed.load(ordering: .relaxed) }
    }
}
