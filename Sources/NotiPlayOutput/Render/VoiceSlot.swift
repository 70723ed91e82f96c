import Synchronization

/// Where a voice slot is in its life. Each step is taken by one side only:
/// control claims (free → preparing) and publishes (→ playing); the render thread ends it
/// (→ finished); the decode worker reports and frees it (→ free).
/// (Annotated constants rather than an enum's raw values: the render path is checked by
/// `@_noLocks`, which cannot see into unannotated getters in other files.)
enum VoicePhase {
    static var free: UInt8 { @_noLocks get { 0 } }
    static var preparing: UInt8 { @_noLocks get { 1 } }
    static var playing: UInt8 { @_noLocks get { 2 } }
    static var finished: UInt8 { @_noLocks get { 3 } }
}

/// One sound being played: its ring of decoded frames and the flags the threads share.
/// Slots are allocated once with the engine; a ring's memory when a slot is first prepared, which
/// the render thread sees only once the slot is published as playing.
struct VoiceSlot: ~Copyable {
    /// Render-owned while playing, set by `play` while preparing: the gain applied to the last frame mixed.
    // First, not `phase`: ThreadSanitizer records a write through `pointee` at the slot's first
    // byte, and `play` preparing a slot while the render thread reads its `phase` was reported
    // as a race on `phase` although it never writes it without an atomic.
    var currentGain: Float = 1
    var isCritical = false
    let phase = Atomic<UInt8>(VoicePhase.free)
    /// Control → render: fade out and finish early.
    let stopRequested = Atomic<Bool>(false)
    /// Control → render: hold position and output silence (the gain ramps down first).
    let paused = Atomic<Bool>(false)
    /// Control → render: the linear gain to reach, as Float bits.
    let targetGain = Atomic<UInt32>(Float(1).bitPattern)
    /// Decoder → render: no more frames will be written.
    let endOfStream = Atomic<Bool>(false)
    /// Render → control: the voice ended because it was stopped, not because it was done.
    let stoppedEarly = Atomic<Bool>(false)
    /// Render → control: frames of this voice mixed so far.
    let framesPlayed = Atomic<Int>(0)

    var ring = FrameRing()

    init() {}
}
