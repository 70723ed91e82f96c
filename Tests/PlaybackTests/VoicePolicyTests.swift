import NotiPlayOutput
import Testing

/// The voice policy on its own: critical sounds first, then the newest.
@Suite struct VoicePolicyTests {
    typealias Voice = VoicePolicy.Voice
    let policy = VoicePolicy(capacity: 3)

    func voices(_ kinds: String) -> [Voice] {
        // "ncn": slot i holds voice id 10 + i, critical where the letter is c.
        kinds.enumerated().map { Voice(slot: $0.offset, id: 10 + $0.offset, isCritical: $0.element == "c") }
    }

    @Test func roomLeftAdmits() {
        #expect(policy.decide(sounding: voices("nn"), newcomerIsCritical: false) == .admit)
        #expect(policy.decide(sounding: [], newcomerIsCritical: true) == .admit)
    }

    @Test func theOldestNonCriticalVoiceGivesWay() {
        #expect(policy.decide(sounding: voices("nnn"), newcomerIsCritical: false) == .replace(slot: 0))
        #expect(policy.decide(sounding: voices("cnn"), newcomerIsCritical: false) == .replace(slot: 1))
        #expect(policy.decide(sounding: voices("cnn"), newcomerIsCritical: true) == .replace(slot: 0))
    }

    @Test func ageIsTheIDNotTheSlot() {
        let sounding = [Voice(slot: 0, id: 30, isCritical: false), Voice(slot: 1, id: 12, isCritical: false),
                        Voice(slot: 2, id: 20, isCritical: false)]
        #expect(policy.decide(sounding: sounding, newcomerIsCritical: false) == .replace(slot: 1))
    }

    @Test func whenEveryVoiceIsCriticalOnlyACriticalNewcomerPlays() {
        #expect(policy.decide(sounding: voices("ccc"), newcomerIsCritical: false) == .refuse)
        #expect(policy.decide(sounding: voices("ccc"), newcomerIsCritical: true) == .replace(slot: 0))
    }

    @Test func aCapacityBelowOneIsOne() {
        let one = VoicePolicy(capacity: 0)
        #expect(one.decide(sounding: [], newcomerIsCritical: false) == .admit)
        #expect(one.decide(sounding: voices("n"), newcomerIsCritical: false) == .replace(slot: 0))
    }
}
