"""The HTTP edge's plumbing, apart from the routes: problem+json errors, ETags and the body cache, public CORS,
request body limits, the OpenAPI patch and the uvicorn protocol that serves it all."""
