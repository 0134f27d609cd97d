#pragma once
// A Promela model of a bounded scenario under a scheme, for SPIN: the same
// transition system as the explorer's StepMachine, written independently so
// that a tool nobody on this project wrote can check it.
//
// What is shared and what is not: the plans (each task's lock steps, in its
// scheme's order and modes) come from impl's planner, as they do for the
// explorer; the lock semantics (impl::LockQueue's grant rule: FIFO among
// incompatible requests; a release drops the task's first hold and scans the
// queue front to back) and the safety property (which requests conflict,
// judged by the model) are re-expressed in Promela, not called.
//
// The model:
//   - one proctype per task, straight-line code: for each request, one
//     d_step per acquisition (guarded by "not waiting"), then one per
//     release, last acquired first. Each d_step is one transition, as each
//     StepMachine step is;
//   - per lock, its holders and its FIFO queue as arrays of (task, mode);
//   - a task whose acquisition queues blocks on its next guard until a
//     release grants it. A state where some task has not ended and none can
//     move is an invalid end state: SPIN's deadlock;
//   - after every step, an assertion for every pair of tasks and every pair
//     of their requests that conflict (model::conflicts): not both in their
//     critical sections (all of the plan granted, nothing released yet).
//
// Check it with: spin -a model.pml && gcc -O2 -DSAFETY -o pan pan.c &&
// ./pan -E (assertions only) or ./pan -A (invalid end states only).

#include <string>

#include "pathlock/sim/explorer.hpp"

namespace pathlock::sim {

// REQUIRES: at most 32 modes, 255 tasks and 255 locks.
std::string to_promela(const StepMachine& machine, const Scenario& scenario);

}  // namespace pathlock::sim
