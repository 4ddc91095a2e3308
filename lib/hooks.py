"""What only the console has, handed to the library below it.

Code under ai/, mcp/ (the client), httpc/ and store/, and jsonstream.py,
never imports the console (shell/): host_tests/test_layers.py fails when
one does. Where such code needs a person or the board's commands, it
reads them here. The console sets them; without it they are None and the
library does without (an MCP server's question is declined, its progress
shown nowhere, ai.run(local=...) refused with a line saying why).

    ask(message, schema[, url])  a person's answer to an MCP server's
        question, while the console runs its loop (shell/elicit.py): a
        dict, False (cancelled) or None (declined)
    spinner()  the console's spinner turning now, or None (MCP progress
        relabels it)
    local(local, tools, routes)  ai.run(local=...): the board's commands as
        tools ahead of tools (shell/chattools.py); set by `import shell`
"""
ask = None
spinner = None
local = None
