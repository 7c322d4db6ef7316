import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Fragment, lazy, Suspense, useEffect, useRef, useState, type ReactNode } from "react";
import { Link, Route, Routes, useLocation, useNavigate, useNavigationType, useParams } from "react-router";
import { AccountScreen } from "./screens/Account.tsx";
import { ApiKeysScreen } from "./screens/ApiKeys.tsx";
import { DomainsScreen } from "./screens/Domains.tsx";
import { ImportsScreen } from "./screens/Imports.tsx";
import { LinkDetailScreen } from "./screens/LinkDetail.tsx";
import { LinkEditorScreen } from "./screens/LinkEditor.tsx";
import { LinksScreen } from "./screens/Links.tsx";
import { PixelsScreen } from "./screens/Pixels.tsx";
import { SetPasswordScreen, SignInScreen } from "./screens/SignIn.tsx";
import { SpacesScreen } from "./screens/Spaces.tsx";
import { UsersScreen } from "./screens/Users.tsx";
import { WebhooksScreen } from "./screens/Webhooks.tsx";
import { RoleGate } from "./RoleGate.tsx";
import { applyTheme, storedTheme, type Theme } from "./theme.ts";
import { isUnauthorized, messageOf, setCsrfToken, signOut, useTRPC, type Me } from "./trpc.ts";
import { ErrorBanner } from "./ui.tsx";
import { hasRole, useWorkspace, type WorkspaceRole } from "./workspace.ts";
import { WorkspaceSwitcher } from "./WorkspaceSwitcher.tsx";

// The analytics screen is its own chunk, loaded when first opened: the first visit's JS stays within ADR 0034's budget.
const AnalyticsScreen = lazy(() => import("./screens/Analytics.tsx").then((m) => ({ default: m.AnalyticsScreen })));
// So are the members screen and the invitation page, which most visits never open.
const MembersScreen = lazy(() => import("./screens/Members.tsx").then((m) => ({ default: m.MembersScreen })));
const InviteScreen = lazy(() => import("./screens/Invite.tsx").then((m) => ({ default: m.InviteScreen })));

const loading = <p aria-live="polite">Loading…</p>;

const NAV = [
  { to: "/", label: "Links", isCurrent: (p: string) => p === "/" || p.startsWith("/links") },
  { to: "/analytics", label: "Analytics", isCurrent: (p: string) => p.startsWith("/analytics") },
  { to: "/domains", label: "Domains", isCurrent: (p: string) => p.startsWith("/domains") },
  { to: "/spaces", label: "Spaces", isCurrent: (p: string) => p.startsWith("/spaces") },
  { to: "/pixels", label: "Pixels", isCurrent: (p: string) => p.startsWith("/pixels") },
  { to: "/imports", label: "Imports", isCurrent: (p: string) => p.startsWith("/imports"), need: "editor" },
  { to: "/webhooks", label: "Webhooks", isCurrent: (p: string) => p.startsWith("/webhooks"), need: "admin" },
  { to: "/members", label: "Members", isCurrent: (p: string) => p.startsWith("/members") },
  { to: "/account/keys", label: "API keys", isCurrent: (p: string) => p.startsWith("/account/keys"), need: "admin" },
  { to: "/account", label: "Account", isCurrent: (p: string) => p === "/account" },
] satisfies NavItem[];
const ADMIN_NAV = { to: "/users", label: "Users", isCurrent: (p: string) => p.startsWith("/users") };

/** A screen of the main menu; `need`: the role in the workspace its screen needs (CONTRACT §24), hidden below it. */
type NavItem = { to: string; label: string; isCurrent: (path: string) => boolean; need?: WorkspaceRole };

/**
 * The workspace switcher, the main navigation, the theme toggle and Sign out. Wide screens show them in
 * the top bar; below 640 px they fold behind a "Menu" button (aria-expanded): opening moves the focus to
 * the first link, Escape closes and gives the focus back to the button, and choosing a screen closes the menu.
 */
function MainMenu({ items, path, canSwitchWorkspace, onSignOut }: { items: NavItem[]; path: string; canSwitchWorkspace: boolean; onSignOut: () => void }) {
  const [isOpen, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  const workspace = useWorkspace();
  const shown = items.filter((item) => !item.need || (workspace && hasRole(workspace.role, item.need)));
  useEffect(() => setOpen(false), [path]);
  useEffect(() => {
    if (!isOpen) return;
    panel.current?.querySelector<HTMLElement>("nav a")?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      setOpen(false);
      button.current?.focus();
    };
    const onPointer = (e: PointerEvent) => {
      const target = e.target as Node;
      if (!panel.current?.contains(target) && !button.current?.contains(target)) setOpen(false);
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("pointerdown", onPointer);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("pointerdown", onPointer);
    };
  }, [isOpen]);
  return (
    <>
      <button ref={button} type="button" className="ghost menu-button" aria-expanded={isOpen} aria-controls="main-menu" onClick={() => setOpen((open) => !open)}>
        <span aria-hidden="true" className="menu-icon" />
        Menu
      </button>
      <div ref={panel} id="main-menu" className="top-menu" data-open={isOpen}>
        <WorkspaceSwitcher canSwitch={canSwitchWorkspace} />
        <nav aria-label="Main">
          <ul>
            {shown.map((item) => (
              <li key={item.to}>
                <Link to={item.to} aria-current={item.isCurrent(path) ? "page" : undefined} onClick={() => setOpen(false)}>
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="top-actions">
          <ThemeToggle />
          <button type="button" className="ghost" onClick={onSignOut}>
            Sign out
          </button>
        </div>
      </div>
    </>
  );
}

function ThemeToggle() {
  const [theme, setTheme] = useState<Theme>(storedTheme);
  const next: Record<Theme, Theme> = { system: "dark", dark: "light", light: "system" };
  return (
    <button
      type="button"
      className="ghost"
      onClick={() => {
        const value = next[theme];
        applyTheme(value);
        setTheme(value);
      }}
      aria-label={`Colour theme: ${theme}. Switch to ${next[theme]}`}
    >
      Theme: {theme}
    </button>
  );
}

function NotFound() {
  return (
    <section>
      <h1>Not found</h1>
      <p>
        There is no such page. <Link to="/">Back to your links</Link>.
      </p>
    </section>
  );
}

/** A screen of one link: `:id` from the path, as a number. Keyed by it, so another link's screen starts afresh. */
function WithLinkId({ render }: { render: (id: number) => ReactNode }) {
  const { id = "" } = useParams();
  return <Fragment key={id}>{render(Number(id))}</Fragment>;
}

/** A new screen starts at the top of the page; Back and Forward keep the browser's own scroll position. */
function ScrollToTopOnNavigate() {
  const { pathname } = useLocation();
  const type = useNavigationType();
  useEffect(() => {
    if (type !== "POP") window.scrollTo(0, 0);
  }, [pathname, type]);
  return null;
}

/** Every screen's path under /app/ (CONTRACT §19; docs/dashboard.md has the table). */
function Screens({ me }: { me: Me }) {
  return (
    <Routes>
      <Route index element={<LinksScreen />} />
      <Route path="links" element={<LinksScreen />} />
      <Route
        path="links/new"
        element={
          <RoleGate need="editor">
            <LinkEditorScreen id={null} />
          </RoleGate>
        }
      />
      <Route
        path="links/:id/edit"
        element={
          <RoleGate need="editor">
            <WithLinkId render={(id) => <LinkEditorScreen id={id} />} />
          </RoleGate>
        }
      />
      <Route path="links/:id" element={<WithLinkId render={(id) => <LinkDetailScreen id={id} />} />} />
      <Route
        path="analytics"
        element={
          <Suspense fallback={loading}>
            <AnalyticsScreen />
          </Suspense>
        }
      />
      <Route path="domains" element={<DomainsScreen />} />
      <Route path="spaces" element={<SpacesScreen />} />
      <Route path="pixels" element={<PixelsScreen />} />
      <Route
        path="imports"
        element={
          <RoleGate need="editor">
            <ImportsScreen />
          </RoleGate>
        }
      />
      <Route
        path="webhooks"
        element={
          <RoleGate need="admin">
            <WebhooksScreen />
          </RoleGate>
        }
      />
      <Route
        path="members"
        element={
          <Suspense fallback={loading}>
            <MembersScreen me={me} />
          </Suspense>
        }
      />
      <Route
        path="account/keys"
        element={
          <RoleGate need="admin">
            <ApiKeysScreen scopes={me.scopes} />
          </RoleGate>
        }
      />
      <Route path="account" element={<AccountScreen me={me} />} />
      <Route path="users" element={me.role === "admin" ? <UsersScreen me={me} /> : <NotFound />} />
      <Route path="*" element={<NotFound />} />
    </Routes>
  );
}

export function App() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const path = useLocation().pathname;
  const navigate = useNavigate();
  const me = useQuery(trpc.auth.me.queryOptions());
  const csrf = me.data?.csrf_token ?? null;
  useEffect(() => setCsrfToken(csrf), [csrf]);

  const onSignedIn = (signedIn: Me) => {
    setCsrfToken(signedIn.csrf_token);
    queryClient.setQueryData(trpc.auth.me.queryKey(), signedIn);
    // The sign-in's answer is the account; auth.me adds what the session may do (scopes, switching).
    void queryClient.invalidateQueries({ queryKey: trpc.auth.me.queryKey() });
  };
  // An invitation link's page (CONTRACT §24) opens signed in or not: it offers an account to someone new.
  const inviteToken = /^\/invite\/([^/]+)\/?$/.exec(path)?.[1];

  if (me.isPending) {
    return (
      <main id="main" className="center">
        <p aria-live="polite">Loading…</p>
      </main>
    );
  }
  if (inviteToken && (me.data || isUnauthorized(me.error))) {
    return (
      <Suspense fallback={<main className="center">{loading}</main>}>
        <InviteScreen token={inviteToken} me={me.data ?? null} signIn={<SignInScreen onSignedIn={onSignedIn} />} />
      </Suspense>
    );
  }
  if (me.isError) {
    if (isUnauthorized(me.error)) return <SignInScreen onSignedIn={onSignedIn} />;
    return (
      <main id="main" className="center">
        <h1>Dashboard</h1>
        <ErrorBanner message={messageOf(me.error)} />
        <button type="button" onClick={() => void me.refetch()}>
          Try again
        </button>
      </main>
    );
  }
  // A single sign-on session needs no password; a first sign-in with an API key chooses one.
  if (!me.data.has_password && !me.data.is_sso) return <SetPasswordScreen me={me.data} />;

  const doSignOut = async () => {
    await signOut();
    queryClient.clear();
    navigate("/", { replace: true });
    await me.refetch();
  };

  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <Link to="/" className="brand">
          Shortener
        </Link>
        <MainMenu
          items={me.data.role === "admin" ? [...NAV.slice(0, -1), ADMIN_NAV, ...NAV.slice(-1)] : NAV}
          path={path}
          canSwitchWorkspace={me.data.can_switch_workspace}
          onSignOut={() => void doSignOut()}
        />
      </header>
      <main id="main" tabIndex={-1}>
        <ScrollToTopOnNavigate />
        <Screens me={me.data} />
      </main>
    </>
  );
}
