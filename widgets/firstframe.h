#pragma once
// For bench/gui/bench_startup: with CLUSTERSCOPE_FIRST_FRAME_SINCE set to the CLOCK_MONOTONIC
// time (nanoseconds) at which the application was started, the first frame that shows a model
// prints "first frame: N ms; CPU C ms, of it the GUI thread's G ms" on stdout and the
// application quits once that frame is on screen. Without the variable, nothing happens.

// Called by the topology view after each paint that showed a model.
void firstModelFramePainted();
