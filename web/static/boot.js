// Starts the game page once the game's own script has registered itself.
"use strict";
window.GamePage.start();
