# Generates report_assets.h with uPlot's minified JS and CSS as C++ raw strings (run at build time
# from the npm package installed by scripts/setup in web/report/node_modules).
file(READ ${JS} js)
# The MIT licence asks for its notice in every copy: each report carries uPlot's in a comment.
file(READ ${LICENSE} license)
string(REPLACE "*/" "* /" license "${license}")
set(js "/*! uPlot's licence:\n${license}*/\n${js}")
file(READ ${CSS} css)
file(WRITE ${OUT} "// Generated from the npm package uplot (MIT) by cli/embed_assets.cmake. Do not edit.\n#pragma once\n")
file(APPEND ${OUT} "static const char kUplotJs[] = R\"HSJS(${js})HSJS\";\n")
file(APPEND ${OUT} "static const char kUplotCss[] = R\"HSJS(${css})HSJS\";\n")
