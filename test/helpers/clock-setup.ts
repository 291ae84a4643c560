import { clock } from '../../src/common/time/clock';
import { loadConfig } from '../../src/config/app-config';

// The test process reads the same clock as the apps it starts: CLOCK_OFFSET_MS moves both (and the built
// servers a test spawns, which inherit the environment), so dates a test derives from clock.now() agree
// with what the app calls now.
clock.setOffsetMs(loadConfig({ CLOCK_OFFSET_MS: process.env.CLOCK_OFFSET_MS }).clock.offsetMs);
