// Broken: it knows the messages of docs/protocol.md's table but throws on any other type
// (`lucky-draw`, a future one) instead of answering null; Node prints the error, then the stack.
const readline = require("readline");
const lines = readline.createInterface({ input: process.stdin });
let seat = 0;
lines.on("line", (line) => {
  const message = JSON.parse(line);
  switch (message.type) {
    case "init":
    case "match-end":
    case "starting-hand":
    case "hand-update":
    case "go-fish-result":
    case "pick-up-result":
      console.log("null");
      break;
    case "ask": {
      const sizes = message.opponentsHandSizes;
      seat = sizes.indexOf(null);
      const other = sizes.findIndex((size, s) => s !== seat && size > 0);
      console.log(JSON.stringify({ player: other < 0 ? (seat + 1) % sizes.length : other, cardId: message.hand[0].id }));
      break;
    }
    case "go-fish":
    case "pick-up":
      console.log("0");
      break;
    default:
      throw new Error("unknown message " + message.type);
  }
});
