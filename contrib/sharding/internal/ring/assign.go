package ring

import "slices"

// Assign gives each of count ranges an owner among members: the returned
// slice's element i is the owner of range i, or "" when members is empty.
//
// It is rendezvous (highest random weight) hashing per range: every member
// scores every range, the highest score wins, ties go to the smaller name.
// So the answer depends only on the set of members (not their order or
// duplicates), and a change of members moves only the ranges it must: a
// member that joins takes only ranges it now wins, a member that leaves
// gives up only its own ranges. Balance is statistical: each member's share
// is near count/len(members) when count is large against len(members).
func Assign(members []string, count int) []string {
	owners := make([]string, count)
	if len(members) == 0 {
		return owners
	}
	ms := slices.Clone(members)
	slices.Sort(ms)
	ms = slices.Compact(ms)
	seeds := make([]uint64, len(ms))
	for j, m := range ms {
		seeds[j] = Hash(m)
	}
	for i := range owners {
		ri := mix64(uint64(i) + 0x9e3779b97f4a7c15)
		best, bestScore := 0, uint64(0)
		for j := range ms {
			s := rendezvousScore(seeds[j], ri)
			if j == 0 || s > bestScore {
				best, bestScore = j, s
			}
		}
		owners[i] = ms[best]
	}
	return owners
}

// rendezvousScore combines a member's hash and a range's mixed index into a
// well-spread score. FNV-1a alone spreads short, similar strings poorly, so
// the result goes through a 64-bit finaliser.
func rendezvousScore(member, rangeMix uint64) uint64 {
	return mix64(member ^ rangeMix)
}

// mix64 is the SplitMix64 finaliser: a bijection on uint64 with full
// avalanche.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Owned returns the ranges of count that Assign gives to member.
func Owned(member string, members []string, count int) []int {
	var out []int
	for i, o := range Assign(members, count) {
		if o == member {
			out = append(out, i)
		}
	}
	return out
}
