// Sign-in pages of OAuth servers (the host's `oauth/authorize` requests, protocol §2). chrome.identity shows
// the page in a window of its own and catches the redirect to https://<extension id>.chromiumapp.org/ before
// it leaves the browser: the code never reaches the network or a local port. The host checked the page's
// address and checks what comes back (state, code); this only opens it.
import { rpcError } from "./host.js";
import { ErrorCode } from "../error_codes.js";

async function authorize({ url }) {
  try {
    return { redirectUrl: await chrome.identity.launchWebAuthFlow({ url: String(url), interactive: true }) };
  } catch (e) {
    // "The user did not approve access." when the window is closed: the host passes it on as the reason.
    throw rpcError(ErrorCode.SERVER_UNAVAILABLE, String(e?.message ?? e));
  }
}

export const signInRequests = { "oauth/authorize": authorize };
