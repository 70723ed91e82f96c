import Synchronization

/// A single-producer, single-consumer ring of interleaved Float32 frames.
///
/// The decode worker writes; the render thread reads. Each side owns one counter and only reads
/// the other's, with acquire/release ordering: no locks, so the render thread never waits on the
/// decoder. Counters count frames ever written/read; their difference is the fill level.
struct FrameRing: ~Copyable {
    private let storage: UnsafeMutablePointer<Float>
    private let storageSamples: Int
    private(set) var channelCount = 1
    /// A power of two, so a position's slot is a mask away.
    private(set) var capacityFrames: Int {
        @_noAllocation get { capacity }
        set { capacity = newValue }
    }
    private var capacity = 0
    private let written = Atomic<Int>(0)
    private let consumed = Atomic<Int>(0)

    init(storageSamples: Int) {
        self.storageSamples = storageSamples
        storage = .allocate(capacity: storageSamples)
        storage.initialize(repeating: 0, count: storageSamples)
    }

    deinit { storage.deallocate() }

    /// Empties the ring and sets the frame size. Only while neither side is using it.
    mutating func reset(channelCount: Int) {
        self.channelCount = channelCount
        var frames = 1
        while frames * 2 * channelCount <= storageSamples { frames *= 2 }
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
        return UnsafeMutableBufferPointer(start: storage + start * channelCount, count: frames * channelCount)
    }

    /// Publishes `frames` frames written into the region from `writableRegion()`.
    func commitWrite(frames: Int) {
        written.store(written.load(ordering: .relaxed) + frames, ordering: .releasing)
    }


    // MARK: Consumer side (the render thread)

    /// The frames ready to read that lie contiguously from the read position.
    @_noAllocation
    func readableRegion() -> (samples: UnsafePointer<Float>, frames: Int) {
        let r = consumed.load(ordering: .relaxed)
        let available = written.load(ordering: .acquiring) - r
        let start = r & (capacityFrames - 1)
        return (UnsafePointer(storage + start * channelCount), min(available, capacityFrames - start))
    }

    @_noAllocation
    func commitRead(frames: Int) {
        consumed.store(consumed.load(ordering: .relaxed) + frames, ordering: .releasing)
    }

    var readableFrames: Int {
        @_noAllocation get { written.load(ordering: .acquiring) - consumed.load(ordering: .relaxed) }
    }
}
