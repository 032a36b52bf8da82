// Entry: applies the theme, then renders the console into #app.
import { render } from "preact";
import { App } from "./app";
import { applyTheme } from "./theme";
import "./styles.css";

applyTheme();
render(<App />, document.getElementById("app")!);
