/** The pages' entry: picks the page from the path (`/`, `/wallet`, `/scan/...`, `/dev`). */
import "uplot/dist/uPlot.min.css"
import "./styles.css"
import { render } from "preact"
import { DevPage } from "./pages/dev.tsx"
import { LandingPage } from "./pages/landing.tsx"
import { ScanPage } from "./pages/scan.tsx"
import { WalletPage } from "./pages/wallet.tsx"
import { Layout, useLocation } from "./ui.tsx"

const App = () => {
  const { path } = useLocation()
  const section = path === "/" ? "/" : `/${path.split("/")[1] ?? ""}`
  return (
    <Layout section={section}>
      {section === "/wallet" ? <WalletPage /> : section === "/scan" ? <ScanPage path={path} /> : section === "/dev" ? <DevPage /> : <LandingPage />}
    </Layout>
  )
}

render(<App />, document.getElementById("app")!)
