// The quality of every contender (ResamplerContenders) on the measured conversions, from the
// same test signals, printed as one Markdown table per conversion:
//
// - THD+N: a −1 dBFS 1 kHz sine; what a least-squares fit of a 1 kHz sine (and DC) leaves over
//   the output's middle, relative to the sine.
// - Passband ripple: peak-to-peak gain, in dB, of 40 tones from 20 Hz to 0.9 × the lower Nyquist.
// - Images/aliases: a stepped sweep, 60 tones from 20 Hz to 0.45 × the input rate; for each, what
//   the fit of the tone leaves, relative to the input tone; the worst.
// - Stopband (downsampling only): 10 tones between the output's Nyquist and 0.98 × the input's;
//   the loudest output relative to the input (all of it is alias).
// - Pre-echo: an impulse; output samples before the peak that are above −120 dB of it.
//
// A stepped sweep rather than a continuous one: a sine fit per step separates the tone from
// everything else exactly, with no FFT window whose side lobes would hide what is below −120 dB.
// Run: `cd Benchmarks && swift run -c release ResamplerQuality`.

import ResamplerContenders

#if canImport(Glibc)
import Glibc
#endif

/// a·cos + b·sin + c fitted to `y` at `frequency` cycles per sample: amplitude and the RMS of the rest.
func sineFit(_ y: ArraySlice<Float>, frequency: Double) -> (amplitude: Double, residualRMS: Double) {
    let w = 2 * Double.pi * frequency
    var m = [[Double]](repeating: [0, 0, 0], count: 3)
    var v = [0.0, 0.0, 0.0]
    var basis = [0.0, 0.0, 1.0]
    for (k, value) in y.enumerated() {
        basis[0] = cos(w * Double(k))
        basis[1] = sin(w * Double(k))
        for i in 0..<3 {
            v[i] += basis[i] * Double(value)
            for j in 0..<3 { m[i][j] += basis[i] * basis[j] }
        }
    }
    for i in 0..<3 {
        for r in (i + 1)..<3 {
            let f = m[r][i] / m[i][i]
            for j in i..<3 { m[r][j] -= f * m[i][j] }
            v[r] -= f * v[i]
        }
    }
    var x = [0.0, 0.0, 0.0]
    for i in stride(from: 2, through: 0, by: -1) {
        x[i] = (v[i] - (i + 1..<3).reduce(0) { $0 + m[i][$1] * x[$1] }) / m[i][i]
    }
    var residual = 0.0
    for (k, value) in y.enumerated() {
        let e = Double(value) - (x[0] * cos(w * Double(k)) + x[1] * sin(w * Double(k)) + x[2])
        residual += e * e
    }
    return ((x[0] * x[0] + x[1] * x[1]).squareRoot(), (residual / Double(y.count)).squareRoot())
}

func dB(_ x: Double) -> Double { 20 * log10(max(x, 1e-30)) }

func tone(_ frequency: Double, rate: Int, seconds: Double, amplitude: Double) -> [Float] {
    (0..<Int(seconds * Double(rate))).map { Float(amplitude * sin(2 * .pi * frequency * Double($0) / Double(rate))) }
}

/// One contender's conversion of a whole mono signal.
func convert(_ contender: Contender, _ input: [Float], from: Int, to: Int) -> [Float] {
    contender.make(from: from, to: to, channels: 1).resampleAll(input, ratio: Double(to) / Double(from))
}

/// The output's middle (a quarter in from each end of `seconds`), away from onset and tail.
func middle(_ output: [Float], rate: Int, seconds: Double) -> ArraySlice<Float> {
    let n = Int(seconds * Double(rate))
    return output[(n / 4)..<(3 * n / 4)]
}

struct Row {
    var thdN = 0.0, ripple = 0.0, images = -300.0, stopband: Double?, preEcho = 0
}

func measure(_ contender: Contender, from: Int, to: Int) -> Row {
    var row = Row()
    let lowerNyquist = Double(min(from, to)) / 2

    let amplitude = 0.891_250_938  // −1 dBFS
    let sine = convert(contender, tone(1000, rate: from, seconds: 2, amplitude: amplitude), from: from, to: to)
    let fit = sineFit(middle(sine, rate: to, seconds: 2), frequency: 1000 / Double(to))
    row.thdN = dB(fit.residualRMS / (fit.amplitude / 2.0.squareRoot()))

    var gains: [Double] = []
    for k in 0..<40 {
        let frequency = 20 + (0.9 * lowerNyquist - 20) * Double(k) / 39
        let out = convert(contender, tone(frequency, rate: from, seconds: 0.5, amplitude: 0.5), from: from, to: to)
        gains.append(dB(sineFit(middle(out, rate: to, seconds: 0.5), frequency: frequency / Double(to)).amplitude / 0.5))
    }
    row.ripple = gains.max()! - gains.min()!

    for k in 0..<60 {
        let frequency = 20 + (0.45 * Double(from) - 20) * Double(k) / 59
        let out = convert(contender, tone(frequency, rate: from, seconds: 0.5, amplitude: 0.5), from: from, to: to)
        let rest = sineFit(middle(out, rate: to, seconds: 0.5), frequency: frequency / Double(to)).residualRMS
        row.images = max(row.images, dB(rest / (0.5 / 2.0.squareRoot())))
    }

    if to < from {
        var worst = -300.0
        for k in 0..<10 {
            let frequency = Double(to) / 2 + (0.49 * Double(from) - Double(to) / 2) * Double(k + 1) / 10
            let out = convert(contender, tone(frequency, rate: from, seconds: 0.5, amplitude: 0.5), from: from, to: to)
            let part = middle(out, rate: to, seconds: 0.5)
            let rms = (part.reduce(0) { $0 + Double($1) * Double($1) } / Double(part.count)).squareRoot()
            worst = max(worst, dB(rms / (0.5 / 2.0.squareRoot())))
        }
        row.stopband = worst
    }

    var impulse = [Float](repeating: 0, count: from)
    impulse[from / 2] = 1
    let response = convert(contender, impulse, from: from, to: to)
    let peak = response.indices.max { abs(response[$0]) < abs(response[$1]) }!
    let threshold = abs(response[peak]) * 1e-6
    let first = response.firstIndex { abs($0) > threshold }!
    row.preEcho = peak - first
    return row
}

func format(_ x: Double) -> String {
    let rounded = (x * 10).rounded() / 10
    return rounded == 0 ? "0.0" : "\(rounded)"
}

func formatRipple(_ x: Double) -> String {
    x < 0.001 ? String(format6(x)) : "\((x * 1000).rounded() / 1000)"
}

func format6(_ x: Double) -> String {
    // Small ripples in scientific-ish form without Foundation: e.g. 0.0000112.
    var digits = ""
    var value = x
    var places = 0
    while value < 0.1 && places < 9 { value *= 10; places += 1 }
    let lead = Int((value * 100).rounded())
    digits = "0." + String(repeating: "0", count: places - 1) + "\(lead)"
    return digits
}

let contenders = CommandLine.arguments.count > 1
    ? CommandLine.arguments.dropFirst().compactMap { Contender(rawValue: $0) }
    : Contender.allCases
for (from, to) in measuredConversions {
    print("\n\(Double(from) / 1000) → \(Double(to) / 1000) kHz\n")
    print("| resampler | THD+N 1 kHz −1 dBFS | passband ripple to 0.9·Nyquist | worst image/alias (sweep to 0.45·fs) | stopband alias | pre-echo (samples > −120 dB) |")
    print("|---|---:|---:|---:|---:|---:|")
    for contender in contenders {
        let row = measure(contender, from: from, to: to)
        let stop = row.stopband.map { format($0) + " dB" } ?? "—"
        print("| \(contender.rawValue) | \(format(row.thdN)) dB | \(formatRipple(row.ripple)) dB | \(format(row.images)) dB | \(stop) | \(row.preEcho) |")
    }
}

// Setup: what creating one resampler costs, median of 9, in µs. Not a speed benchmark (those are
// in ResamplerBenchmarks). noti-play's filter table is designed once per rate pair and shared,
// and the quality rows above made it already: its figure is a resampler's own setup after that.
print("\nSetup (create one stereo resampler), median of 9\n")
print("| resampler | " + measuredConversions.map { "\(Double($0.from) / 1000) → \(Double($0.to) / 1000) kHz" }.joined(separator: " | ") + " |")
print("|---|" + String(repeating: "---:|", count: measuredConversions.count))
for contender in contenders {
    var cells: [String] = []
    for (from, to) in measuredConversions {
        var times: [Double] = []
        for _ in 0..<9 {
            let start = ContinuousClock.now
            let resampler = contender.make(from: from, to: to, channels: 2)
            let (s, a) = (ContinuousClock.now - start).components
            withExtendedLifetime(resampler) {}
            times.append(Double(s) * 1e6 + Double(a) / 1e12)
        }
        cells.append("\(Int(times.sorted()[4].rounded())) µs")
    }
    print("| \(contender.rawValue) | " + cells.joined(separator: " | ") + " |")
}
