/// Keeps a mix of sounds within full scale instead of clipping it: a burst of notifications that
/// start together is heard quieter, not distorted.
///
/// It acts only on a sum: while two or more voices play and a frame of their mix would pass full
/// scale. Then the gain falls, at most `attackStep` a frame and ahead of the frame that needs it
/// (the whole period is mixed before it is written: a look-ahead of up to a period), to exactly
/// what that frame allows, full scale; it rises back at `releaseStep` a frame once the mix is quieter, and
/// stops at exactly 1. A lone sound is never touched (its own overs are clipped, as a file's
/// samples are), and a mix that stays within full scale plays bit for bit.
struct Limiter {
    /// The gain after the last frame of the previous period.
    private(set) var gain: Float = 1
    /// The most the gain falls from one frame to the next ahead of a peak: 1 → 0.5 in 1 ms.
    let attackStep: Float
    /// The most the gain rises from one frame to the next: 0.5 → 1 in 50 ms.
    let releaseStep: Float
    /// How far ahead a frame's gain already allows for a peak: 1 ms.
    let holdFrames: Int
    /// Per frame of a period, the gain the frame allows: the render thread's scratch.
    private let allowed: UnsafeMutablePointer<Float>
    private let periodFrames: Int

    init(sampleRate: Int, periodFrames: Int) {
        attackStep = 0.5 / Float(max(1, sampleRate / 1000))
        releaseStep = 0.5 / Float(max(1, sampleRate / 20))
        holdFrames = max(1, sampleRate / 1000)
        allowed = .allocate(capacity: max(1, periodFrames))
        self.periodFrames = periodFrames
    }

    func deallocate() { allowed.deallocate() }

    /// Scales the period's mix (`frames` frames of `channels` interleaved samples) where the sum
    /// of `voices` playing voices would pass full scale, and while the gain recovers.
    @_noLocks
    mutating func apply(to mix: UnsafeMutablePointer<Float>, frames: Int, channels: Int, voices: Int) {
        // Nothing plays: the next sound starts at full gain, whatever the last burst left.
        if voices == 0 { gain = 1; return }
        let frames = min(frames, periodFrames)
        var needed = false
        if voices > 1 {
            // What each frame allows: full scale, exactly, where it needs it (a sum just over
            // loses next to nothing; 1/+Inf is 0: a sum that overflowed is silence, not a click).
            for frame in 0..<frames {
                var peak: Float = 0
                for channel in 0..<channels { peak = max(peak, abs(mix[frame * channels + channel])) }
                allowed[frame] = peak > 1 ? 1 / peak : 1
                needed = needed || peak > 1
            }
        }
        if needed {
            // Backwards: a frame allows no more than any of the `holdFrames` after it (the gain
            // is already down before a peak and stays down across it, so the peak's neighbours
            // are quieter than it, not flattened up to full scale), nor more than its successor
            // allows plus one attack step (the gain, falling at that rate, is there in time).
            var next: Float = 1
            for frame in stride(from: frames - 1, through: 0, by: -1) {
                var held = allowed[frame]
                for ahead in (frame + 1)..<min(frames, frame + 1 + holdFrames) { held = min(held, allowed[ahead]) }
                next = min(held, next + attackStep)
                allowed[frame] = next
            }
        }
        if !needed && gain == 1 { return }
        for frame in 0..<frames {
            let ceiling: Float = needed ? allowed[frame] : 1
            gain = min(min(ceiling, gain + releaseStep), 1)
            for channel in 0..<channels { mix[frame * channels + channel] *= gain }
        }
    }
}
