import Synchronization

/// Everything the render thread touches, allocated once before it starts: no reference
/// counting, no allocation, no locks on the way from the rings to the device buffer.
struct RenderContext: ~Copyable {
    let slots: UnsafeMutablePointer<VoiceSlot>
    let slotCount: Int
    let deviceChannels: Int
    let periodFrames: Int
    let sampleFormat: DeviceSampleFormat
    /// Gain change per frame on a ramp: a full 1 → 0 fade takes `rampFrames` frames.
    let rampStep: Float
    /// The period's mix, Float32 interleaved in the device's channel count.
    let mix: UnsafeMutablePointer<Float>
    /// The period converted to the device format.
    let deviceBuffer: UnsafeMutableRawPointer
    /// Keeps the voices' sum within full scale (the render thread's alone).
    var limiter: Limiter

    // Shared with the threads that start and stop rendering; only atomics.
    /// Stop rendering at once (the engine is closing).
    let shutdown = Atomic<Bool>(false)
    /// Drain and stop once no voice is playing (the command plays one sound and exits);
    /// otherwise the render thread drains, sleeps until a sound starts, and prepares the device again.
    let drainWhenIdle = Atomic<Bool>(false)
    /// Times the render thread found every voice waiting for its decoder and paused.
    let starvedWaits = Atomic<Int>(0)
    /// Device underruns (-EPIPE from a write) recovered so far.
    let underruns = Atomic<Int>(0)
    /// Frames ALSA accepted so far (only the render thread writes it).
    let framesWritten = Atomic<Int>(0)
    /// The ALSA error that ended rendering, or 0.
    let fatalError = Atomic<Int32>(0)
    /// Whether the render thread got SCHED_FIFO.
    let realtime = Atomic<Bool>(false)
    /// CLOCK_MONOTONIC nanoseconds when the first period had been handed to ALSA, or 0.
    let firstWriteNanoseconds = Atomic<UInt64>(0)
    /// CLOCK_MONOTONIC nanoseconds when the latest period had been handed to ALSA, or 0.
    let lastWriteNanoseconds = Atomic<UInt64>(0)
}

/// What one period held.
struct PeriodSummary {
    /// Voices playing during the period.
    var activeVoices: Int
    /// Of those, voices asked to fade out and end (stopped, replaced, preempted).
    var stoppingVoices = 0
    /// Frames of the period that carry sound: the whole period, or less when the voices ended
    /// inside it or their decoders are behind (then only those frames are written).
    var framesWithSound: Int
    /// A ring fell below half full or a voice ended: the decode worker has work.
    var decoderHasWork = false
}

enum Mixer {
    /// Mixes one period from every playing voice and converts it for the device.
    @_noLocks
    static func renderPeriod(_ context: UnsafeMutablePointer<RenderContext>) -> PeriodSummary {
        let period = context.pointee.periodFrames
        let channels = context.pointee.deviceChannels
        let mix = context.pointee.mix
        mix.update(repeating: 0, count: period * channels)
        var summary = PeriodSummary(activeVoices: 0, framesWithSound: 0)
        for index in 0..<context.pointee.slotCount {
            let slot = context.pointee.slots + index
            guard slot.pointee.phase.load(ordering: .acquiring) == VoicePhase.playing else { continue }
            summary.activeVoices += 1
            if slot.pointee.stopRequested.load(ordering: .relaxed) { summary.stoppingVoices += 1 }
            let frames = mixVoice(slot, into: mix, context: context)
            summary.framesWithSound = max(summary.framesWithSound, frames)
            // Once this thread marked the voice finished, the worker may free the slot and `play`
            // reset its ring at any moment: its ring is not read again (ThreadSanitizer found this).
            let ended = slot.pointee.phase.load(ordering: .relaxed) == VoicePhase.finished
            // Waking the worker every period would cost more than the mixing: only at half full.
            let ring = !ended && slot.pointee.ring.readableFrames * 2 < slot.pointee.ring.capacityFrames
                && !slot.pointee.endOfStream.load(ordering: .relaxed)
            summary.decoderHasWork = summary.decoderHasWork || ring || ended
        }
        // Over the frames that will be written only: a period the decoder left empty is not
        // written, and the gain must not move over it.
        context.pointee.limiter.apply(to: mix, frames: summary.framesWithSound, channels: channels, voices: summary.activeVoices)
        // The whole period: frames past the sound's end stay silent for a period written whole.
        SampleConversion.convert(
            mix, count: period * channels, to: context.pointee.sampleFormat, into: context.pointee.deviceBuffer)
        return summary
    }

    /// Whether any voice is playing: one started while the render thread slept.
    @_noLocks
    static func hasPlayingVoice(_ context: UnsafeMutablePointer<RenderContext>) -> Bool {
        for index in 0..<context.pointee.slotCount
        where (context.pointee.slots + index).pointee.phase.load(ordering: .acquiring) == VoicePhase.playing {
            return true
        }
        return false
    }

    /// Adds one voice's next period to the mix at its gain. Returns how many frames of the
    /// period the voice filled: all of them unless it ended or ran out of decoded frames.
    @_noLocks
    static func mixVoice(
        _ slot: UnsafeMutablePointer<VoiceSlot>, into mix: UnsafeMutablePointer<Float>,
        context: UnsafeMutablePointer<RenderContext>
    ) -> Int {
        let period = context.pointee.periodFrames
        let stopping = slot.pointee.stopRequested.load(ordering: .relaxed)
        let pausing = slot.pointee.paused.load(ordering: .relaxed)
        let target: Float = stopping || pausing ? 0 : Float(bitPattern: slot.pointee.targetGain.load(ordering: .relaxed))
        // A paused voice that has faded out holds its place and gives silence.
        if pausing && !stopping && slot.pointee.currentGain == 0 { return period }

        var mixed = 0
        while mixed < period {
            let region = slot.pointee.ring.readableRegion()
            if region.frames == 0 { break }
            var frames = min(region.frames, period - mixed)
            if target != slot.pointee.currentGain {
                // Stop the chunk where the ramp ends, so a fade-out ends exactly at zero.
                frames = min(frames, rampFramesLeft(from: slot.pointee.currentGain, to: target, step: context.pointee.rampStep))
            }
            slot.pointee.currentGain = addFrames(
                region.samples, frames: frames, voiceChannels: slot.pointee.ring.channelCount,
                gain: slot.pointee.currentGain, target: target, step: context.pointee.rampStep,
                into: mix + mixed * context.pointee.deviceChannels, deviceChannels: context.pointee.deviceChannels)
            slot.pointee.ring.commitRead(frames: frames)
            mixed += frames
            if (stopping || pausing) && slot.pointee.currentGain == 0 { break }
        }
        // Only this thread writes the counters, so a load and a store is an increment.
        slot.pointee.framesPlayed.store(slot.pointee.framesPlayed.load(ordering: .relaxed) + mixed, ordering: .relaxed)

        if stopping && slot.pointee.currentGain == 0 {
            slot.pointee.stoppedEarly.store(true, ordering: .relaxed)
            slot.pointee.phase.store(VoicePhase.finished, ordering: .releasing)
            return mixed
        }
        if pausing && slot.pointee.currentGain == 0 { return period }
        if mixed < period && slot.pointee.endOfStream.load(ordering: .acquiring) && slot.pointee.ring.readableFrames == 0 {
            slot.pointee.phase.store(VoicePhase.finished, ordering: .releasing)
        }
        // A voice whose decoder is behind contributes what it has; silence is never inserted
        // into it, so the stream stays exactly the decoded samples.
        return mixed
    }

    @_noLocks
    static func rampFramesLeft(from gain: Float, to target: Float, step: Float) -> Int {
        max(1, Int((abs(target - gain) / step) + 0.999_999))
    }

    /// Mixes `frames` frames, mapping the voice's channels onto the device's: equal counts map
    /// one to one; a mono voice feeds every channel; a mono device gets the voices' average;
    /// otherwise the first channels map one to one and the rest are dropped.
    /// Returns the gain after the last frame.
    @_noLocks
    static func addFrames(
        _ samples: UnsafePointer<Float>, frames: Int, voiceChannels: Int, gain: Float, target: Float,
        step: Float, into mix: UnsafeMutablePointer<Float>, deviceChannels: Int
    ) -> Float {
        var gain = gain
        let shared = min(voiceChannels, deviceChannels)
        for frame in 0..<frames {
            if gain != target {
                gain = gain < target ? min(gain + step, target) : max(gain - step, target)
            }
            let input = samples + frame * voiceChannels
            let output = mix + frame * deviceChannels
            if voiceChannels == deviceChannels {
                for c in 0..<deviceChannels { output[c] += contribution(input[c] * gain) }
            } else if voiceChannels == 1 {
                let value = contribution(input[0] * gain)
                for c in 0..<deviceChannels { output[c] += value }
            } else if deviceChannels == 1 {
                var sum: Float = 0
                for c in 0..<voiceChannels { sum += input[c] }
                output[0] += contribution(sum / Float(voiceChannels) * gain)
            } else {
                for c in 0..<shared { output[c] += contribution(input[c] * gain) }
            }
        }
        return gain
    }

    /// A voice's sample after its gain, made finite before it joins the mix: NaN (a hostile
    /// sound, Inf × a gain of 0, Inf − Inf in a downmix) is silence, ±Inf the largest finite
    /// value. So one voice cannot turn the others' samples into NaN, and the mix, a sum of finite
    /// values, may overflow to ±Inf (clipped to full scale when converted) but is never NaN.
    /// Finite values pass unchanged, bit for bit.
    @_noLocks @inline(__always)
    static func contribution(_ scaledSample: Float) -> Float {
        scaledSample == scaledSample
            ? min(max(scaledSample, -.greatestFiniteMagnitude), .greatestFiniteMagnitude) : 0
    }
}
