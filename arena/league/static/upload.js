"use strict";
const form = document.getElementById("upload");
const progress = document.getElementById("progress");
async function look() {
  try {
    const response = await fetch("/me/progress", {cache: "no-store"});
    const data = await response.json();
    if (data.stage) progress.textContent = data.text + "… " + data.seconds + " s";
  } catch (error) { /* the answer is on its way */ }
}
form.addEventListener("submit", () => {
  progress.hidden = false;
  progress.textContent = "Uploading…";
  setInterval(look, 1000);
});
