/** A user of uring4j on the module path: it can only reach what io.github.uring4j.core exports. */
module io.github.uring4j.modulecheck {
    requires io.github.uring4j.core;

    exports io.github.uring4j.modulecheck;
}
