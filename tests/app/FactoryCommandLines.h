#pragma once

// cogvideox-factory training command lines, as its README and train scripts write them.
const char* factoryReadmeCommand();
const char* factoryScriptCommand();
